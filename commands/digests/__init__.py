"""Scheduled digests and threshold alerts: their commands, their schedules and what a
digest contains.
"""
