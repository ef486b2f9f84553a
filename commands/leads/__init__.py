"""Leads and lead lists: list totals, one lead, and checking and uploading a CSV of leads."""
