; CoinCollector as a PDDL world: rooms joined by open doorways or doors, which start closed.
; Action names and parameters follow PDDLego+ (move, open-door), so a plan step maps to an
; environment command mechanically: (move ?from ?to ?dir) <-> "move {dir}".
; A door is one thing seen from two rooms: opening or closing it from one side changes both.
(define (domain coin-collector)
  (:requirements :strips :typing :negative-preconditions :disjunctive-preconditions
                 :conditional-effects)
  (:types room direction item)
  (:predicates
    (at ?r - room)
    (connected ?from - room ?to - room ?dir - direction)
    (has-door ?from - room ?to - room ?dir - direction)
    (door-open ?from - room ?to - room ?dir - direction)
    (in ?i - item ?r - room)
    (holding ?i - item)
    (visited ?r - room))

  (:action open-door
    :parameters (?loc1 - room ?loc2 - room ?dir - direction)
    :precondition (and (at ?loc1) (has-door ?loc1 ?loc2 ?dir)
                       (not (door-open ?loc1 ?loc2 ?dir)))
    :effect (and (door-open ?loc1 ?loc2 ?dir)
                 (forall (?back - direction)
                   (when (has-door ?loc2 ?loc1 ?back) (door-open ?loc2 ?loc1 ?back)))))

  (:action close-door
    :parameters (?loc1 - room ?loc2 - room ?dir - direction)
    :precondition (and (at ?loc1) (has-door ?loc1 ?loc2 ?dir) (door-open ?loc1 ?loc2 ?dir))
    :effect (and (not (door-open ?loc1 ?loc2 ?dir))
                 (forall (?back - direction)
                   (when (has-door ?loc2 ?loc1 ?back) (not (door-open ?loc2 ?loc1 ?back))))))

  (:action move
    :parameters (?from - room ?to - room ?dir - direction)
    :precondition (and (at ?from) (connected ?from ?to ?dir)
                       (or (not (has-door ?from ?to ?dir)) (door-open ?from ?to ?dir)))
    :effect (and (not (at ?from)) (at ?to) (visited ?to)))

  (:action take
    :parameters (?i - item ?r - room)
    :precondition (and (at ?r) (in ?i ?r))
    :effect (and (holding ?i) (not (in ?i ?r)))))
