"""The embedded offline web suite behind ``GUI/LocalWeb-v0`` (its entry point:
`gui_gym.envs.localweb`): five apps on a loopback server (`apps/`, on the `framework`), the
template contract (`templates`), answer matching (`answers`), the oracle's way of acting
(`oracle_ui`) and the suite that serves them (`suite`). docs/localweb.md is the guide."""
