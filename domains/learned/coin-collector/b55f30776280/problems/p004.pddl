(define (problem step)
  (:domain coin-collector)
  (:objects sliding - room sliding_door - item pantry - room unknown_north - room north - direction corridor - room west - direction)
  (:init
    (player pantry)
    (connected pantry unknown_north north)
    (closed pantry unknown_north north)
    (connected pantry corridor west))
  (:goal (player unknown_north)))
