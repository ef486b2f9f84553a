"""One class per resource family; ``CallCenter`` exposes each as an attribute."""

from callcenter.resources.auth import Auth
from callcenter.resources.autocall import Autocall
from callcenter.resources.calls import Calls
from callcenter.resources.campaigns import Campaigns
from callcenter.resources.cdrs import Cdrs
from callcenter.resources.directory import Blacklist, Carriers, Gateways
from callcenter.resources.groups import Groups
from callcenter.resources.leads import Leads
from callcenter.resources.lists import Lists
from callcenter.resources.reports import Reports
from callcenter.resources.templates import Templates
from callcenter.resources.users import Users

__all__ = [
    "Auth",
    "Autocall",
    "Blacklist",
    "Calls",
    "Campaigns",
    "Carriers",
    "Cdrs",
    "Gateways",
    "Groups",
    "Leads",
    "Lists",
    "Reports",
    "Templates",
    "Users",
]
