(define (problem step)
  (:domain coin-collector)
  (:objects pantry - room corridor - room east - direction kitchen - room south - direction west - direction)
  (:init
    (connected pantry corridor east)
    (player corridor)
    (connected corridor kitchen south)
    (connected corridor pantry west))
  (:goal (player kitchen)))
