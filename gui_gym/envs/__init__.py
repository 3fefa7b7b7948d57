"""The entry points of the ``GUI/*`` ids, one module per suite: each wires a backend, a suite
and `GUIEnv` (and, where an id's contract says so, a wrapper), which is why this floor sits
above the wrappers. `gui_gym.registration` names them as ``"module:function"`` strings, so
nothing here is imported before `gym.make`.

Android's entry points (``GUI/Android-v0``, ``GUI/AndroidControl-v0``) are still in
`gui_gym.suites.android`, until that package is restructured.
"""
