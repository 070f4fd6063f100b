"""``msgraphlint doctor``: environment checks and the probe run in the checked interpreter."""
