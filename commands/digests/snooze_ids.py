"""The Snooze buttons' action ids, shared by threshold and anomaly alerts (one snooze
flow for both, ``commands.digests.alerts.snooze_clicked``)."""

SNOOZE_HOUR_ACTION = "alert_snooze_1h"
SNOOZE_TOMORROW_ACTION = "alert_snooze_tomorrow"
