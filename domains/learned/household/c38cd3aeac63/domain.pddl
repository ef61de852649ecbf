(define (domain household)
  (:requirements :strips :typing :negative-preconditions :disjunctive-preconditions)
  (:types receptacle obj)
  (:predicates
    (player ?p1 - receptacle)
    (connects ?r1 - receptacle ?r2 - receptacle)
    (closed ?r - receptacle)
    (thing ?o - obj ?r - receptacle)
    (holds ?o - obj)
    (cleaned ?o - obj)
    (hot ?o - obj))
  (:action gotolocation
    :parameters (?from - receptacle ?to - receptacle)
    :precondition (and (not (connects ?from ?to)) (not (closed ?from)))
    :effect (and (player ?to)))
  (:action openobject
    :parameters (?r - receptacle)
    :precondition (and (player ?r) (closed ?r))
    :effect (and (not (closed ?r))))
  (:action closeobject
    :parameters (?r - receptacle)
    :precondition (and (player ?r) (not (closed ?r)))
    :effect (and (closed ?r)))
  (:action pickupobject
    :parameters (?o - obj ?r - receptacle)
    :precondition (and (player ?r) (not (closed ?r)) (thing ?o ?r))
    :effect (and (not (thing ?o ?r)) (closed ?r) (holds ?o) (cleaned ?o) (hot ?o)))
  (:action putobject
    :parameters (?o - obj ?r - receptacle)
    :precondition (and (player ?r) (not (thing ?o ?r)) (holds ?o))
    :effect (and (not (holds ?o)) (thing ?o ?r) (cleaned ?o) (hot ?o)))
  (:action heatobject
    :parameters (?o - obj ?r - receptacle)
    :precondition (and (player ?r) (closed ?r) (thing ?o ?r) (holds ?o) (cleaned ?o) (not (hot ?o)))
    :effect (and (hot ?o) (hot ?o) (hot ?o)))
  (:action coolobject
    :parameters (?o - obj ?r - receptacle)
    :precondition (and (player ?r) (closed ?r) (cleaned ?o) (hot ?o))
    :effect (and (not (hot ?o))))
  (:action cleanobject
    :parameters (?o - obj ?r - receptacle)
    :precondition (and (player ?r) (closed ?r) (thing ?o ?r) (holds ?o) (cleaned ?o) (hot ?o))
    :effect (and (not (hot ?o))))
  (:action sliceobject
    :parameters (?o - obj ?k - obj ?r - receptacle)
    :precondition (and (player ?r) (closed ?r) (thing ?o ?r) (holds ?o) (cleaned ?o) (hot ?o))
    :effect (and (hot ?k)))
  (:action toggleobject
    :parameters (?l - obj ?r - receptacle)
    :precondition (and (player ?r) (holds ?l) (cleaned ?l) (hot ?l))
    :effect (and (not (hot ?l)))))
