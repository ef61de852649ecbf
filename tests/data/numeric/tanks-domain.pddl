(define (domain tanks)
  (:requirements :strips :typing :numeric-fluents)
  (:types tank)
  (:functions (level ?t - tank) (capacity ?t - tank) (water))
  (:action fill
    :parameters (?t - tank)
    :precondition (and (<= (+ (level ?t) 2) (capacity ?t)) (>= (water) 2))
    :effect (and (increase (level ?t) 2) (decrease (water) 2))))
