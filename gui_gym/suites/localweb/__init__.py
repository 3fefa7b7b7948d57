"""The embedded offline web suite behind ``GUI/LocalWeb-v0`` (its entry point:
`gui_gym.envs.localweb`): five apps on a loopback server (`apps/`, on the `framework`), task
templates (`templates`) and the suite that serves them (`suite`)."""
