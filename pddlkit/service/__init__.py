"""pddlkit as a tool server: the core's answers as data (:mod:`.tools`) and the Model Context Protocol over them (:mod:`.server`, ``pddlkit mcp``)."""
