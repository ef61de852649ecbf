(define (problem step)
  (:domain coin-collector)
  (:objects pantry - room corridor - room east - direction)
  (:init
    (player pantry)
    (connected pantry corridor east))
  (:goal (player corridor) ))
