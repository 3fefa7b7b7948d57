"""OSWorld on the local desktop (``GUI/OSWorld-v0``, ``provider="local"``, the bundled sample) as the CUBE benchmark ``gui-gym-osworld``."""
