"""The demo suite (``GUI/Demo-v0``) as the CUBE benchmark ``gui-gym-demo``."""
