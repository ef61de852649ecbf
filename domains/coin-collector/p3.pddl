; Three rooms: kitchen -(closed door, south)- patio -(doorway, west)- backyard, coin in the backyard.
(define (problem coin-3)
  (:domain coin-collector)
  (:objects kitchen patio backyard - room
            north south east west - direction
            coin - item)
  (:init (at kitchen) (visited kitchen)
         (connected kitchen patio south) (connected patio kitchen north)
         (has-door kitchen patio south)
         (connected patio backyard west) (connected backyard patio east)
         (in coin backyard))
  (:goal (holding coin)))
