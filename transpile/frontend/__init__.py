"""The front end: parsing a kernel's Python source, its signature, and
lowering it (checking and folding) to typed IR."""
