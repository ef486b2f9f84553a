-- The schema callops created before its Alembic baseline (schema version 11),
-- on sqlite: the statements storage/migrations.py ran at commit 2f27f47, in order,
-- recorded from that code. tests/storage/test_upgrade.py builds a database from it.

CREATE TABLE workspaces (
        team_id TEXT PRIMARY KEY,
        base_url TEXT,
        api_key_enc TEXT,
        timezone TEXT NOT NULL,
        approvals_channel TEXT,
        digests_channel TEXT,
        notifications_channel TEXT,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        connected_at REAL
    );

CREATE TABLE service_tokens (
        team_id TEXT PRIMARY KEY,
        token_enc TEXT NOT NULL,
        expires_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );

CREATE TABLE roles (
        team_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('admin', 'operator', 'viewer')),
        granted_by TEXT,
        updated_at REAL NOT NULL,
        PRIMARY KEY (team_id, user_id)
    );

CREATE TABLE approval_policies (
        team_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('approval', 'confirm', 'none')),
        approvers TEXT NOT NULL,
        allow_self_approval INTEGER NOT NULL,
        expiry_seconds INTEGER NOT NULL CHECK (expiry_seconds > 0),
        min_role TEXT NOT NULL CHECK (min_role IN ('admin', 'operator', 'viewer')),
        updated_by TEXT,
        updated_at REAL NOT NULL,
        PRIMARY KEY (team_id, kind)
    );

CREATE TABLE approvals (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        params_enc TEXT NOT NULL,
        params_hash TEXT NOT NULL,
        approvers TEXT NOT NULL,
        allow_self_approval INTEGER NOT NULL,
        requester TEXT NOT NULL,
        decider TEXT,
        reason TEXT,
        state TEXT NOT NULL CHECK (state IN ('pending','approved','executing','done','failed','denied','expired','cancelled')),
        created_at REAL NOT NULL,
        decided_at REAL,
        executed_at REAL,
        finished_at REAL,
        expires_at REAL NOT NULL,
        channel TEXT,
        message_ts TEXT,
        result TEXT
    );

CREATE INDEX approvals_team_state ON approvals (team_id, state, created_at);

CREATE INDEX approvals_state_expiry ON approvals (state, expires_at);

CREATE TABLE audit_log (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at REAL NOT NULL,
        team_id TEXT,
        user_id TEXT,
        action TEXT NOT NULL,
        params TEXT NOT NULL DEFAULT '{}',
        outcome TEXT NOT NULL,
        detail TEXT
    );

CREATE INDEX audit_log_team_at ON audit_log (team_id, at);

CREATE INDEX audit_log_at ON audit_log (at);

CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
       BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;

CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
       BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;

CREATE TABLE slack_installations (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        app_id TEXT,
        enterprise_id TEXT NOT NULL DEFAULT '',
        enterprise_name TEXT,
        enterprise_url TEXT,
        team_id TEXT NOT NULL DEFAULT '',
        team_name TEXT,
        bot_token_enc TEXT,
        bot_id TEXT,
        bot_user_id TEXT,
        bot_scopes TEXT,
        bot_refresh_token_enc TEXT,
        bot_token_expires_at INTEGER,
        user_id TEXT NOT NULL,
        user_token_enc TEXT,
        user_scopes TEXT,
        user_refresh_token_enc TEXT,
        user_token_expires_at INTEGER,
        incoming_webhook_url_enc TEXT,
        incoming_webhook_channel TEXT,
        incoming_webhook_channel_id TEXT,
        incoming_webhook_configuration_url TEXT,
        is_enterprise_install INTEGER NOT NULL DEFAULT 0,
        token_type TEXT,
        installed_at REAL NOT NULL,
        custom_values TEXT NOT NULL DEFAULT '{}',
        UNIQUE (enterprise_id, team_id, user_id)
    );

CREATE INDEX slack_installations_latest ON slack_installations (enterprise_id, team_id, installed_at);

CREATE TABLE oauth_states (
        state TEXT PRIMARY KEY,
        expires_at REAL NOT NULL
    );

CREATE TABLE digests (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL,
        channel TEXT NOT NULL,
        schedule TEXT NOT NULL,
        timezone TEXT NOT NULL,
        campaigns TEXT NOT NULL DEFAULT '[]',
        sections TEXT NOT NULL DEFAULT '[]',
        paused INTEGER NOT NULL DEFAULT 0,
        created_by TEXT NOT NULL,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        last_slot TEXT
    );

CREATE INDEX digests_team ON digests (team_id);

CREATE TABLE digest_runs (
        digest_id TEXT NOT NULL REFERENCES digests (id) ON DELETE CASCADE,
        slot TEXT NOT NULL,
        claimed_at REAL NOT NULL,
        finished_at REAL,
        outcome TEXT,
        detail TEXT,
        PRIMARY KEY (digest_id, slot)
    );

CREATE TABLE notification_routes (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL,
        channel TEXT NOT NULL,
        campaigns TEXT NOT NULL DEFAULT '[]',
        statuses TEXT NOT NULL DEFAULT '[]',
        directions TEXT NOT NULL DEFAULT '[]',
        presskey_only INTEGER NOT NULL DEFAULT 0,
        created_by TEXT NOT NULL,
        created_at REAL NOT NULL
    );

CREATE INDEX notification_routes_team ON notification_routes (team_id);

CREATE TABLE callback_tokens (
        team_id TEXT PRIMARY KEY,
        token_hash TEXT NOT NULL UNIQUE,
        token_enc TEXT NOT NULL,
        created_at REAL NOT NULL
    );

CREATE TABLE processed_callbacks (
        team_id TEXT NOT NULL,
        callback_id TEXT NOT NULL,
        processed_at REAL NOT NULL,
        PRIMARY KEY (team_id, callback_id)
    );

CREATE INDEX processed_callbacks_at ON processed_callbacks (processed_at);

CREATE TABLE processed_events (
        team_id TEXT NOT NULL,
        event_id TEXT NOT NULL,
        processed_at REAL NOT NULL,
        PRIMARY KEY (team_id, event_id)
    );

CREATE INDEX processed_events_at ON processed_events (processed_at);

CREATE TABLE callback_queue (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        team_id TEXT NOT NULL,
        lane TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('card', 'outcome')),
        record_id TEXT NOT NULL,
        payload_enc TEXT NOT NULL,
        received_at REAL NOT NULL,
        not_before REAL NOT NULL DEFAULT 0,
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        lease_owner TEXT,
        lease_until REAL
    );

CREATE INDEX callback_queue_lane ON callback_queue (team_id, lane, seq);

CREATE TABLE call_threads (
        team_id TEXT NOT NULL,
        channel TEXT NOT NULL,
        day TEXT NOT NULL,
        subject_hash TEXT NOT NULL,
        root_ts TEXT NOT NULL,
        created_at REAL NOT NULL,
        PRIMARY KEY (team_id, channel, day, subject_hash)
    );

CREATE INDEX call_threads_created ON call_threads (created_at);

CREATE TABLE alerts (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL,
        channel TEXT NOT NULL,
        metric TEXT NOT NULL,
        op TEXT NOT NULL,
        threshold REAL NOT NULL,
        campaign_uuid TEXT,
        campaign_name TEXT,
        window_minutes INTEGER NOT NULL CHECK (window_minutes > 0),
        snoozed_until REAL,
        created_by TEXT NOT NULL,
        created_at REAL NOT NULL
    );

CREATE INDEX alerts_team ON alerts (team_id);

CREATE TABLE alert_fired (
        alert_id TEXT NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,
        subject TEXT NOT NULL,
        value REAL NOT NULL,
        fired_at REAL NOT NULL,
        channel TEXT,
        message_ts TEXT,
        PRIMARY KEY (alert_id, subject)
    );

CREATE TABLE workspace_notices (
        team_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        detail TEXT,
        channel TEXT,
        opened_at REAL NOT NULL,
        PRIMARY KEY (team_id, kind)
    );

CREATE TABLE step_runs (
        team_id TEXT NOT NULL,
        approval_id TEXT NOT NULL,
        function_execution_id TEXT NOT NULL,
        callback_id TEXT NOT NULL,
        outputs TEXT NOT NULL,
        token_enc TEXT,
        created_at REAL NOT NULL,
        settled_at REAL,
        PRIMARY KEY (team_id, approval_id)
    );

CREATE UNIQUE INDEX step_runs_execution ON step_runs (function_execution_id);

CREATE TABLE approval_secrets (
        team_id TEXT NOT NULL,
        approval_id TEXT NOT NULL,
        secret_enc TEXT,
        prompt_url_enc TEXT,
        prompt_url_at REAL,
        created_at REAL NOT NULL,
        PRIMARY KEY (team_id, approval_id)
    );

ALTER TABLE approvals ADD COLUMN lease_until REAL;

ALTER TABLE slack_installations ADD COLUMN bot_refresh_lease_owner TEXT;

ALTER TABLE slack_installations ADD COLUMN bot_refresh_lease_until REAL;

CREATE TABLE calling_rules (
        team_id TEXT NOT NULL,
        campaign_uuid TEXT NOT NULL,
        hours_start INTEGER CHECK (hours_start BETWEEN 0 AND 1439),
        hours_end INTEGER CHECK (hours_end BETWEEN 0 AND 1439),
        advertising INTEGER CHECK (advertising IN (0, 1)),
        frequency INTEGER CHECK (frequency >= 0),
        updated_by TEXT,
        updated_at REAL NOT NULL,
        PRIMARY KEY (team_id, campaign_uuid)
    );

CREATE TABLE dnc_numbers (
        team_id TEXT NOT NULL,
        phone TEXT NOT NULL,
        added_at REAL NOT NULL,
        PRIMARY KEY (team_id, phone)
    );

CREATE TABLE outbound_pushes (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        team_id TEXT NOT NULL,
        phone TEXT NOT NULL,
        campaign_uuid TEXT NOT NULL,
        at REAL NOT NULL
    );

CREATE INDEX outbound_pushes_by_phone ON outbound_pushes (team_id, phone, at);

CREATE TABLE people (
        team_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        language TEXT CHECK (language IN ('vi', 'en')),
        slack_locale TEXT,
        slack_tz TEXT,
        seen_at REAL,
        updated_at REAL NOT NULL,
        PRIMARY KEY (team_id, user_id)
    );

ALTER TABLE workspaces ADD COLUMN default_language TEXT CHECK (default_language IN ('vi', 'en'));

ALTER TABLE workspaces ADD COLUMN admin_locale TEXT;

ALTER TABLE workspaces ADD COLUMN name_order TEXT NOT NULL DEFAULT 'family-first' CHECK (name_order IN ('family-first', 'given-first'));

ALTER TABLE workspaces ADD COLUMN mask_phones INTEGER NOT NULL DEFAULT 0;

ALTER TABLE workspaces ADD COLUMN timezone_source TEXT;

ALTER TABLE digests ADD COLUMN language TEXT CHECK (language IN ('vi', 'en'));

ALTER TABLE alerts ADD COLUMN language TEXT CHECK (language IN ('vi', 'en'));

ALTER TABLE notification_routes ADD COLUMN language TEXT CHECK (language IN ('vi', 'en'));

ALTER TABLE notification_routes ADD COLUMN fold INTEGER NOT NULL DEFAULT 1;

ALTER TABLE notification_routes ADD COLUMN notable TEXT NOT NULL DEFAULT '[]';

ALTER TABLE callback_queue ADD COLUMN post_as TEXT NOT NULL DEFAULT 'card';

CREATE TABLE call_folds (
        team_id TEXT NOT NULL,
        channel TEXT NOT NULL,
        root_ts TEXT NOT NULL,
        opened_at REAL NOT NULL,
        held INTEGER NOT NULL,
        records_enc TEXT NOT NULL,
        PRIMARY KEY (team_id, channel)
    );

CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);

INSERT INTO schema_version (version) VALUES (11);
