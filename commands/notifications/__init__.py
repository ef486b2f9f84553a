"""Call notifications: routes from the service's call-record callbacks to channels, and the
call card.
"""
