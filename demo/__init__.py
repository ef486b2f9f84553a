"""The offline demo: the app wired to the call-center emulator and the Slack stand-in.

It ships with the ``callops[demo]`` extra, beside ``emulators``: the product packages
(``callcenter``, ``storage``, ``commands``, ``bot``) import nothing of it, so
``pip install callops`` runs ``callops serve`` and ``callops socket`` without the
emulators' web stack. ``callops demo`` imports it only when asked to run.
"""
