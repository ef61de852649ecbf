; PLAP's five skills (seed 002, Table I) with their initiation conditions as preconditions and
; what they change as effects. pddlkit checks each line of a skill plan against this model in
; the state read from the game (skills.check), so an impossible line is explained, not just
; dropped. Counts are numeric fluents; the producer of a unit type is static.
(define (domain microrts-skills)
  (:requirements :strips :typing :numeric-fluents)
  (:types utype location direction)
  (:constants worker light heavy ranged base barracks - utype)
  (:predicates
    (mineral-at ?l - location)        ; a mineral field with resources left
    (free ?l - location)              ; inside the map, no unit or wall on it
    (in-map ?l - location)
    (mobile ?t - utype)
    (combat ?t - utype)
    (building ?t - utype)
    (producer ?b - utype ?t - utype)) ; ?b produces ?t (base: worker; barracks: the others)
  (:functions
    (resources)                       ; the player's stock
    (own ?t - utype)                  ; the player's units of a type
    (enemy ?t - utype)                ; the opponent's units of a type
    (cost ?t - utype))
  (:action deploy-unit
    :parameters (?t - utype ?l - location)
    :precondition (and (mobile ?t) (>= (own ?t) 1) (in-map ?l))
    :effect (and))
  (:action harvest-mineral
    :parameters (?l - location)
    :precondition (and (mineral-at ?l) (>= (own worker) 1) (>= (own base) 1))
    :effect (and))
  (:action build-building
    :parameters (?t - utype ?l - location)
    :precondition (and (building ?t) (>= (own worker) 1) (in-map ?l) (free ?l)
                       (>= (resources) (cost ?t)))
    :effect (and (decrease (resources) (cost ?t)) (not (free ?l))))
  (:action produce-unit
    :parameters (?t - utype ?b - utype ?d - direction)
    :precondition (and (mobile ?t) (producer ?b ?t) (>= (own ?b) 1)
                       (>= (resources) (cost ?t)))
    :effect (and (decrease (resources) (cost ?t))))
  (:action attack-enemy
    :parameters (?t - utype ?e - utype)
    :precondition (and (combat ?t) (>= (own ?t) 1) (>= (enemy ?e) 1))
    :effect (and)))
