"""Live calls and what acts on them: the live-call listing, transfer and the automated call
(autocall).
"""
