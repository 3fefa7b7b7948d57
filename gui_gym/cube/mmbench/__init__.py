"""The MMBench-GUI sample (``GUI/MMBench-GUI-L1-v0`` and ``-L2-v0``, ``data_root="sample"``) as the CUBE benchmark ``gui-gym-mmbench``."""
