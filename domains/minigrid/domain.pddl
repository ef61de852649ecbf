; MiniGrid's Unlock, DoorKey and UnlockPickup as a PDDL model, built from the same grid a
; program sees (pddlkit.envs.minigrid_tasks.problem_for): cells, the agent's cell and heading,
; walls, one locked door, one key, a box and a goal. Actions follow MiniGrid's own: turn left or
; right (90 degrees), move forward onto a passable cell (floor, the goal, an open door), pick up
; the object in front (a key or a box; hands hold one thing), drop it on empty floor in front,
; and toggle the locked door in front open while holding the key. Each plan step maps to one
; program action: LEFT, RIGHT, MOVE, PICKUP, DROP, UNLOCK.
(define (domain minigrid)
  (:requirements :strips :typing :negative-preconditions)
  (:types cell dir thing - object
          key box - thing
          door)
  (:predicates
    (at ?c - cell)
    (facing ?d - dir)
    (left-of ?d ?e - dir)            ; turning left from ?d faces ?e
    (adj ?from ?to - cell ?d - dir)  ; ?to is the cell ahead of ?from when facing ?d
    (passable ?c - cell)             ; the agent may stand there
    (empty ?c - cell)                ; floor with nothing on it (something may be dropped there)
    (thing-at ?t - thing ?c - cell)
    (holding ?t - thing)
    (handempty)
    (door-at ?d - door ?c - cell)
    (locked ?d - door)
    (open ?d - door))

  (:action turn-left
    :parameters (?d ?e - dir)
    :precondition (and (facing ?d) (left-of ?d ?e))
    :effect (and (not (facing ?d)) (facing ?e)))

  (:action turn-right
    :parameters (?d ?e - dir)
    :precondition (and (facing ?d) (left-of ?e ?d))
    :effect (and (not (facing ?d)) (facing ?e)))

  (:action forward
    :parameters (?from ?to - cell ?d - dir)
    :precondition (and (at ?from) (facing ?d) (adj ?from ?to ?d) (passable ?to))
    :effect (and (not (at ?from)) (at ?to)))

  (:action pickup
    :parameters (?t - thing ?from ?to - cell ?d - dir)
    :precondition (and (at ?from) (facing ?d) (adj ?from ?to ?d) (thing-at ?t ?to) (handempty))
    :effect (and (holding ?t) (not (handempty)) (not (thing-at ?t ?to))
                 (passable ?to) (empty ?to)))

  (:action drop
    :parameters (?t - thing ?from ?to - cell ?d - dir)
    :precondition (and (at ?from) (facing ?d) (adj ?from ?to ?d) (holding ?t) (empty ?to))
    :effect (and (not (holding ?t)) (handempty) (thing-at ?t ?to)
                 (not (passable ?to)) (not (empty ?to))))

  (:action unlock
    :parameters (?o - door ?k - key ?from ?to - cell ?d - dir)
    :precondition (and (at ?from) (facing ?d) (adj ?from ?to ?d) (door-at ?o ?to) (locked ?o)
                       (holding ?k))
    :effect (and (not (locked ?o)) (open ?o) (passable ?to))))
