; An ALFWorld-style household as a PDDL world: the agent walks between receptacles, opens and
; closes them, takes and places objects, heats, cools, cleans, slices, and examines things
; under a lamp. Action names follow ALFWorld's commands, so a plan step maps to a command:
; (gotolocation ?from ?to) <-> "go to {to}", (pickupobject ?o ?r) <-> "take {o} from {r}".
; Object classes (apple, mug, ...) and receptacle classes (fridge, cabinet, ...) are objects
; of type otype/rtype, so a goal can ask for "some apple in some fridge".
(define (domain household)
  (:requirements :strips :typing :negative-preconditions :disjunctive-preconditions
                 :equality :existential-preconditions :conditional-effects)
  (:types receptacle obj otype rtype)
  (:predicates
    (atlocation ?r - receptacle)
    (inreceptacle ?o - obj ?r - receptacle)
    (holds ?o - obj)
    (handempty)
    (openable ?r - receptacle)
    (opened ?r - receptacle)
    (objecttype ?o - obj ?t - otype)
    (receptacletype ?r - receptacle ?t - rtype)
    (heater ?r - receptacle)
    (cooler ?r - receptacle)
    (washer ?r - receptacle)
    (lamp ?o - obj)
    (sharp ?o - obj)
    (heatable ?o - obj)
    (coolable ?o - obj)
    (cleanable ?o - obj)
    (sliceable ?o - obj)
    (ishot ?o - obj)
    (iscool ?o - obj)
    (isclean ?o - obj)
    (issliced ?o - obj)
    (ison ?o - obj)
    (examined ?o - obj))

  (:action gotolocation
    :parameters (?from - receptacle ?to - receptacle)
    :precondition (and (atlocation ?from) (not (= ?from ?to)))
    :effect (and (not (atlocation ?from)) (atlocation ?to)))

  (:action openobject
    :parameters (?r - receptacle)
    :precondition (and (atlocation ?r) (openable ?r) (not (opened ?r)))
    :effect (opened ?r))

  (:action closeobject
    :parameters (?r - receptacle)
    :precondition (and (atlocation ?r) (openable ?r) (opened ?r))
    :effect (not (opened ?r)))

  (:action pickupobject
    :parameters (?o - obj ?r - receptacle)
    :precondition (and (atlocation ?r) (or (not (openable ?r)) (opened ?r))
                       (inreceptacle ?o ?r) (handempty))
    :effect (and (holds ?o) (not (handempty)) (not (inreceptacle ?o ?r))))

  (:action putobject
    :parameters (?o - obj ?r - receptacle)
    :precondition (and (atlocation ?r) (holds ?o) (or (not (openable ?r)) (opened ?r)))
    :effect (and (inreceptacle ?o ?r) (handempty) (not (holds ?o))))

  (:action heatobject
    :parameters (?o - obj ?r - receptacle)
    :precondition (and (atlocation ?r) (heater ?r) (holds ?o) (heatable ?o))
    :effect (and (ishot ?o) (not (iscool ?o))))

  (:action coolobject
    :parameters (?o - obj ?r - receptacle)
    :precondition (and (atlocation ?r) (cooler ?r) (holds ?o) (coolable ?o))
    :effect (and (iscool ?o) (not (ishot ?o))))

  (:action cleanobject
    :parameters (?o - obj ?r - receptacle)
    :precondition (and (atlocation ?r) (washer ?r) (holds ?o) (cleanable ?o))
    :effect (isclean ?o))

  (:action sliceobject
    :parameters (?o - obj ?k - obj ?r - receptacle)
    :precondition (and (atlocation ?r) (or (not (openable ?r)) (opened ?r))
                       (inreceptacle ?o ?r) (holds ?k) (sharp ?k) (sliceable ?o))
    :effect (issliced ?o))

  (:action toggleobject
    :parameters (?l - obj ?r - receptacle)
    :precondition (and (atlocation ?r) (or (not (openable ?r)) (opened ?r))
                       (inreceptacle ?l ?r) (lamp ?l))
    :effect (and (ison ?l)
                 (forall (?o - obj) (when (holds ?o) (examined ?o))))))
