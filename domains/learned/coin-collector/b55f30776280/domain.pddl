(define (domain coin-collector)
  (:requirements :strips :typing :negative-preconditions :disjunctive-preconditions)
  (:types room direction item)
  (:predicates
    (player ?p - room)
    (connected ?from - room ?to - room ?dir - direction)
    (closed ?loc1 - room ?loc2 - room ?dir - direction)
    (thing ?i - item ?r - room)
    (held ?p - item)
    (cleaned ?i - item))
  (:action move
    :parameters (?from - room ?to - room ?dir - direction)
    :precondition (and (player ?from) (connected ?from ?to ?dir) (not (closed ?from ?to ?dir)))
    :effect (and (not (player ?from)) (player ?to)))
  (:action open-door
    :parameters (?loc1 - room ?loc2 - room ?dir - direction)
    :precondition (and (player ?loc1) (connected ?loc1 ?loc2 ?dir) (closed ?loc1 ?loc2 ?dir))
    :effect (and (not (closed ?loc1 ?loc2 ?dir))))
  (:action close-door
    :parameters (?loc1 - room ?loc2 - room ?dir - direction)
    :precondition (and (player ?loc1) (connected ?loc1 ?loc2 ?dir) (closed ?loc1 ?loc2 ?dir))
    :effect (and (not (player ?loc1)) (not (closed ?loc1 ?loc2 ?dir)) (player ?loc2)))
  (:action take
    :parameters (?i - item ?r - room)
    :precondition (and (player ?r) (thing ?i ?r) (not (held ?i)) (not (cleaned ?i)))
    :effect (and (not (thing ?i ?r)) (held ?i) (cleaned ?i))))
