"""SQLite schema of the emulator's state.

Resources the emulator never changes field by field (campaigns, templates, carriers,
gateways, blacklist) keep their wire JSON in ``body`` next to the columns queries
filter on.  Call records are stored column per field (no repeated key names), which
keeps 100,000 of them in a few tens of megabytes and pages of 500 cheap to build.
Every table carries ``domain_uuid`` and every query filters on it.
"""

from __future__ import annotations

from callcenter.models import Cdr

SCHEMA_VERSION = 1

CDR_FIELDS: tuple[str, ...] = tuple(Cdr.model_fields)
"""The wire fields of a call record, in the model's order; also the table's columns."""

_CDR_COLUMNS = ",\n    ".join(
    f"{name} {'INTEGER' if name in {'duration', 'billsec', 'presskey_delay'} else 'TEXT'}"
    for name in CDR_FIELDS
)

DDL = f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE domains (
    domain_uuid TEXT PRIMARY KEY, domain_name TEXT NOT NULL UNIQUE, api_key TEXT NOT NULL UNIQUE,
    client_id TEXT NOT NULL, api_user_uuid TEXT NOT NULL, hotlines TEXT NOT NULL
);
CREATE TABLE tokens (
    token TEXT PRIMARY KEY, domain_uuid TEXT NOT NULL, expires_at REAL NOT NULL
);
CREATE TABLE roles (role_uuid TEXT PRIMARY KEY, domain_uuid TEXT NOT NULL, role_name TEXT NOT NULL);
CREATE TABLE users (
    user_uuid TEXT PRIMARY KEY, domain_uuid TEXT NOT NULL, seq INTEGER NOT NULL,
    username TEXT NOT NULL, first_name TEXT NOT NULL, middle_name TEXT NOT NULL,
    last_name TEXT NOT NULL, email TEXT NOT NULL, level TEXT NOT NULL, role_uuid TEXT NOT NULL,
    user_enabled TEXT NOT NULL, user_status TEXT NOT NULL, agent_status TEXT NOT NULL,
    extension TEXT NOT NULL, extension_uuid TEXT NOT NULL, enable_webrtc INTEGER NOT NULL,
    password_hash TEXT NOT NULL, created_at REAL NOT NULL, pause_sec_per_day INTEGER NOT NULL
);
CREATE INDEX users_domain ON users (domain_uuid, seq);
CREATE INDEX users_extension ON users (domain_uuid, extension);
CREATE TABLE groups (
    group_uuid TEXT PRIMARY KEY, domain_uuid TEXT NOT NULL, seq INTEGER NOT NULL,
    group_name TEXT NOT NULL, group_description TEXT NOT NULL, department_uuid TEXT NOT NULL,
    group_priority INTEGER NOT NULL
);
CREATE INDEX groups_domain ON groups (domain_uuid, group_name);
CREATE TABLE group_users (
    group_uuid TEXT NOT NULL, user_uuid TEXT NOT NULL, PRIMARY KEY (group_uuid, user_uuid)
);
CREATE INDEX group_users_user ON group_users (user_uuid);
CREATE TABLE group_campaigns (
    group_uuid TEXT NOT NULL, campaign_uuid TEXT NOT NULL, PRIMARY KEY (group_uuid, campaign_uuid)
);
CREATE INDEX group_campaigns_campaign ON group_campaigns (campaign_uuid);
CREATE TABLE campaigns (
    campaign_uuid TEXT PRIMARY KEY, domain_uuid TEXT NOT NULL, seq INTEGER NOT NULL,
    campaign_name TEXT NOT NULL, type TEXT NOT NULL, status TEXT NOT NULL,
    concurrent_call INTEGER NOT NULL, created_at REAL NOT NULL, body TEXT NOT NULL
);
CREATE INDEX campaigns_domain ON campaigns (domain_uuid, seq);
CREATE INDEX campaigns_type ON campaigns (domain_uuid, type, seq);
CREATE INDEX campaigns_status ON campaigns (status);
CREATE TABLE templates (
    template_uuid TEXT PRIMARY KEY, domain_uuid TEXT NOT NULL, seq INTEGER NOT NULL,
    template_name TEXT NOT NULL, body TEXT NOT NULL
);
CREATE INDEX templates_domain ON templates (domain_uuid, seq);
CREATE TABLE carriers (
    carrier_uuid TEXT PRIMARY KEY, domain_uuid TEXT NOT NULL, seq INTEGER NOT NULL,
    carrier_name TEXT NOT NULL, body TEXT NOT NULL
);
CREATE INDEX carriers_domain ON carriers (domain_uuid, seq);
CREATE TABLE gateways (
    gateway_uuid TEXT PRIMARY KEY, domain_uuid TEXT NOT NULL, seq INTEGER NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX gateways_domain ON gateways (domain_uuid, seq);
CREATE TABLE blacklist (
    id TEXT PRIMARY KEY, domain_uuid TEXT NOT NULL, seq INTEGER NOT NULL,
    phone_number TEXT NOT NULL, body TEXT NOT NULL
);
CREATE INDEX blacklist_domain ON blacklist (domain_uuid, seq);
CREATE INDEX blacklist_phone ON blacklist (domain_uuid, phone_number);
CREATE TABLE lists (
    list_uuid TEXT PRIMARY KEY, domain_uuid TEXT NOT NULL, seq INTEGER NOT NULL,
    campaign_uuid TEXT NOT NULL, list_name TEXT NOT NULL, description TEXT NOT NULL,
    user_uuid TEXT NOT NULL, active INTEGER NOT NULL, created_at REAL NOT NULL,
    updated_at REAL NOT NULL, reset_time REAL NOT NULL, total_fields INTEGER NOT NULL,
    total_upload INTEGER NOT NULL, total_success INTEGER NOT NULL, total_fail INTEGER NOT NULL,
    recall_status TEXT NOT NULL
);
CREATE INDEX lists_campaign ON lists (campaign_uuid);
CREATE TABLE leads (
    lead_uuid TEXT PRIMARY KEY, domain_uuid TEXT NOT NULL, list_uuid TEXT NOT NULL,
    seq INTEGER NOT NULL, phone_number TEXT NOT NULL, status TEXT NOT NULL,
    called_count INTEGER NOT NULL, last_call_at REAL, next_call_at REAL,
    created_at REAL NOT NULL, updated_at REAL NOT NULL, after_day INTEGER NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX leads_list ON leads (list_uuid, status, seq);
CREATE TABLE live_calls (
    call_id TEXT PRIMARY KEY, domain_uuid TEXT NOT NULL, seq INTEGER NOT NULL,
    direction TEXT NOT NULL, source TEXT NOT NULL, destination TEXT NOT NULL,
    dialed TEXT NOT NULL, extension TEXT NOT NULL, context TEXT NOT NULL,
    receive_dest TEXT NOT NULL,
    campaign_uuid TEXT NOT NULL, lead_uuid TEXT NOT NULL, app TEXT NOT NULL,
    params TEXT NOT NULL, customer_name TEXT NOT NULL, sip_call_id TEXT NOT NULL,
    created_at REAL NOT NULL, answered_at REAL, phase TEXT NOT NULL, outcome TEXT NOT NULL,
    ring_seconds REAL NOT NULL, talk_seconds REAL NOT NULL, due_at REAL,
    press_key TEXT NOT NULL, transfers INTEGER NOT NULL
);
CREATE INDEX live_calls_domain ON live_calls (domain_uuid, seq);
CREATE INDEX live_calls_due ON live_calls (due_at);
CREATE INDEX live_calls_campaign ON live_calls (campaign_uuid);
CREATE TABLE cdrs (
    domain_uuid TEXT NOT NULL, t_start INTEGER NOT NULL, t_end INTEGER NOT NULL,
    {_CDR_COLUMNS}
);
CREATE INDEX cdrs_start ON cdrs (domain_uuid, t_start);
CREATE INDEX cdrs_end ON cdrs (domain_uuid, t_end);
CREATE INDEX cdrs_extension ON cdrs (domain_uuid, extension, t_start);
CREATE INDEX cdrs_campaign ON cdrs (domain_uuid, campaign_uuid, t_start);
"""

CDR_INSERT = (
    f"INSERT INTO cdrs (domain_uuid, t_start, t_end, {', '.join(CDR_FIELDS)}) "
    f"VALUES ({', '.join('?' * (len(CDR_FIELDS) + 3))})"
)
