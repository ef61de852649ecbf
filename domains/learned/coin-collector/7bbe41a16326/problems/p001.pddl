(define (problem step)
  (:domain coin-collector)
  (:objects front - room front_door - item revealing - room pantry - room unknown_north - room north - direction unknown_front_door - item corridor - room)
  (:init
    (connected pantry unknown_north north)
    (player pantry)
    (thing unknown_front_door corridor))
  (:goal (player unknown_north) ))
