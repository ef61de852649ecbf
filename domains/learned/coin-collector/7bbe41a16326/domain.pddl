(define (domain coin-collector)
  (:requirements :strips :typing :negative-preconditions :disjunctive-preconditions)
  (:types room direction item)
  (:predicates
    (player ?p1 - room)
    (connected ?r1 - room ?r2 - room ?dir - direction)
    (closed-door ?loc1 - room ?loc2 - room ?dir - direction)
    (thing ?t - item ?r - room)
    (holding ?p1 - item)
    (cleaned ?t - item)
    (hot ?t - item))
  (:action move
    :parameters (?from - room ?to - room ?dir - direction)
    :precondition (and (player ?from) (connected ?from ?to ?dir) (not (closed-door ?from ?to ?dir)))
    :effect (and (not (player ?from)) (player ?to) (closed-door ?from ?to ?dir)))
  (:action open-door
    :parameters (?loc1 - room ?loc2 - room ?dir - direction)
    :precondition (and (player ?loc1) (connected ?loc1 ?loc2 ?dir) (closed-door ?loc1 ?loc2 ?dir))
    :effect (and (not (closed-door ?loc1 ?loc2 ?dir))))
  (:action close-door
    :parameters (?loc1 - room ?loc2 - room ?dir - direction)
    :precondition (and (player ?loc1) (connected ?loc1 ?loc2 ?dir) (not (closed-door ?loc1 ?loc2 ?dir)))
    :effect (and (closed-door ?loc1 ?loc2 ?dir)))
  (:action take
    :parameters (?i - item ?r - room)
    :precondition (and (player ?r) (thing ?i ?r) (not (holding ?i)) (not (cleaned ?i)) (not (hot ?i)))
    :effect (and (holding ?i) (cleaned ?i) (hot ?i))))
