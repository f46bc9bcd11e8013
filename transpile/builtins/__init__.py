"""The built-ins a kernel can call."""
