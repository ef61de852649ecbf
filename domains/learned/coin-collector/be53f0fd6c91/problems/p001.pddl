(define (problem explore) (:domain exploration)
  (:objects kitchen room_north - location north south east west - direction coin - item)
  (:init (at kitchen) (connected kitchen room_north north) (door kitchen room_north north))
  (:goal (at room_north)))
