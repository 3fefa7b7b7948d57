"""LocalWeb (``GUI/LocalWeb-v0``) as the CUBE benchmark ``gui-gym-localweb``."""
