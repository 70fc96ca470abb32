"""A word problem and its solution shared by the core, real-stack and app tests."""

FOG = (
    "A fog bank rolls in from the ocean to cover a city. It takes 10 minutes to cover every "
    "3 miles of the city. If the city is 42 miles across, how many minutes will it take for "
    "the fog bank to cover the whole city?"
)
FOG_SOLUTION = (
    "The city will be covered in 42/3 = 14 intervals of 10 minutes.\n"
    "Thus, it will take 14 * 10 = 140 minutes for the fog to cover the whole city.\n"
    "#### 140"
)
