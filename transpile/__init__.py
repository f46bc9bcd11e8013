"""kdsl's compiler: the arithmetic type layer, the IR and (later) the passes."""
