"""The kernel every command family builds on: the grammar, the catalog of commands and
their roles, the context a handler is given, replies, paging, text escaping, forms,
periods and campaign resolution.
"""
