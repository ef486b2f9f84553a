"""Customers' personal data (Law 91/2025/QH15): masking, Show number, find and erase."""
