"""How a verl config selects the ``gui_gym`` trainer: the error messages of the pieces that
run only inside it name these settings."""

TRAINER = "gui_gym"
SELECT_TRAINER = f"trainer.use_v1=true trainer.v1.trainer_mode={TRAINER}"
