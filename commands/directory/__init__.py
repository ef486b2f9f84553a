"""The call center's directory: users, groups, templates, carriers, gateways, blacklist,
and group and user changes.
"""
