"""MiniWoB++ (``GUI/MiniWoB-v0``) as the CUBE benchmark ``gui-gym-miniwob``."""
