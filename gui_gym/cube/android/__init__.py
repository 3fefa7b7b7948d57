"""AndroidWorld's tasks on a phone or emulator (``GUI/Android-v0``, the device the benchmark config names) as the CUBE benchmark ``gui-gym-android``."""
