"""Approvals: the registry of actions that change the phone system, and the workflow that
asks, decides and runs them once.
"""
