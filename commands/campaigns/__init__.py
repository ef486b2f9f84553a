"""Campaigns: their listing and card, and starting, pausing and stopping them."""
