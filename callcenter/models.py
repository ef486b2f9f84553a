"""Wire-format models of the call-center service (spec section 2 and the bodies of section 4).

One set of models serves both sides: the client parses responses with them and the
emulator (``emulators/pbx``) builds its responses from them, so the two cannot drift.

Field names are exactly the service's, quirks included (``parralel``, ``time_ringging``,
``expired_in``).  Every model accepts and keeps fields the spec does not list
(``extra="allow"``): the service may add fields, and a full-body PUT built from a read
must send them back untouched.  Timestamps stay strings: the service mixes
``YYYY-MM-DD HH:MM:SS``, ISO 8601 with offset and empty strings, and a PUT must echo
them byte for byte; ``callcenter.timefmt`` parses them where a value is needed.
"""

from __future__ import annotations

from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

CampaignType = Literal["autocall", "autodialer", "inbound", "manual"]
CampaignStatus = Literal["stop", "start", "pause"]
ModeCall = Literal["direct", "serial", "parralel"]
TypeAutocall = Literal["autocall_voice_tts", "autocall_audio", "autocall_voice_otp"]
Direction = Literal["inbound", "outbound", "local"]
Leg = Literal["aleg", "bleg"]
StatsInterval = Literal["hour", "day", "week", "month"]
RecallStatus = Literal[
    "answered",
    "busy",
    "failed",
    "no-answered",
    "not-available",
    "voicemail",
    "invalid-number",
    "phone-block",
    "congestion",
]


class WireModel(BaseModel):
    """Base of every wire model: tolerant of unknown fields, which it keeps."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    def to_wire(self) -> dict[str, Any]:
        """The JSON body the service expects, unknown fields included."""
        return self.model_dump(mode="json")


T = TypeVar("T")


class Page(WireModel, Generic[T]):
    """The paging envelope of list responses (spec section 2)."""

    data: list[T] = Field(default_factory=list)
    limit: int = 0
    offset: int = 0
    total: int = 0


# --- 2.1 / 2.2 tokens -------------------------------------------------------------------


class TokenV3(WireModel):
    client_id: str = ""
    domain_uuid: str = ""
    expired_in: int = 0
    refresh_token: str = ""
    token: str
    token_type: str = "Bearer"  # noqa: S105 - a scheme name, not a secret
    user_id: str = ""


class TokenV1Data(WireModel):
    expired: int = 0
    token: str
    user_id: str = ""


class TokenV1(WireModel):
    data: TokenV1Data


class ApiKeyBody(WireModel):
    api_key: str


# --- 2.4 group, 2.3 user ----------------------------------------------------------------


class Group(WireModel):
    group_uuid: str
    domain_uuid: str = ""
    group_name: str = ""
    group_description: str = ""
    department_uuid: str = ""
    group_weight: int | None = None


class User(WireModel):
    user_uuid: str
    domain_uuid: str = ""
    username: str = ""
    api_key: str = ""
    user_enabled: Literal["true", "false"] | str = "true"
    user_status: str = ""
    group_name: str = ""
    level: str = ""
    last_name: str = ""
    middle_name: str = ""
    first_name: str = ""
    groups: list[Group] | None = None
    campaigns: list[Any] | None = None
    role_uuid: str = ""
    role_name: str = ""
    email: str = ""
    enable_webrtc: bool = False
    extension: str = ""


# --- 2.5 campaign -----------------------------------------------------------------------


class Network(WireModel):
    operator_a: int = 0
    operator_b: int = 0
    operator_c: int = 0
    operator_d: int = 0
    offnet: int = 0


class Schedule(WireModel):
    """Weekly dialing window; times are nanoseconds since midnight (spec 8.5)."""

    monday_start_time: int = 0
    monday_end_time: int = 0
    tuesday_start_time: int = 0
    tuesday_end_time: int = 0
    wednesday_start_time: int = 0
    wednesday_end_time: int = 0
    thursday_start_time: int = 0
    thursday_end_time: int = 0
    friday_start_time: int = 0
    friday_end_time: int = 0
    saturday_start_time: int = 0
    saturday_end_time: int = 0
    sunday_start_time: int = 0
    sunday_end_time: int = 0


class Campaign(WireModel):
    domain_uuid: str = ""
    campaign_uuid: str
    campaign_name: str
    type: CampaignType | str
    type_autocall: TypeAutocall | str = ""
    description: str = ""
    active: bool = False
    concurrent_call: int = 0
    ratio: int = 0
    carrier_uuid: str = ""
    carrier_name: str = ""
    call_center_queue_uuid: str = ""
    call_center_queue_strategy: str = ""
    template_uuid: str = ""
    template_name: str = ""
    recall_times: int = 0
    limit_recall_duration: int = 0
    schedule_recall: str = ""
    schedule_recall_duration: int = 0
    priority_recall: Literal["normal", "recall"] | str = "normal"
    recall_status: list[str] | None = None
    hopper: int = 0
    answer_callback_url: str = ""
    callback_url: str = ""
    local_start_time: str = ""
    local_end_time: str = ""
    customer_order: str = ""
    allow_manual_dial: bool = False
    allow_search_lead: bool = False
    enable_callback_alert: bool = False
    enable_encrypt: bool = False
    default_list_uuid: str = ""
    script_uuid: str = ""
    orig_campaign_uuid: str = ""
    status: CampaignStatus | str = "stop"
    mode_call: ModeCall | str = "direct"
    network: Network | None = None
    run_id: str = ""
    call_timeout: int = 0
    domain_name: str = ""
    users: list[Any] | None = None
    groups: list[Any] | None = None
    statuses: list[Any] | None = None
    schedules: list[Schedule] | None = None
    created_at: str = ""
    updated_at: str = ""


class CampaignRow(BaseModel):
    """A campaign as a listing shows it: the fields of ``Campaign`` with the same names
    and defaults, the rest of each campaign (schedules, recall rules, network split)
    ignored rather than validated, since a listing reads every campaign on each command.
    Nothing unknown is kept, so a row is never the body of a PUT."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    campaign_uuid: str
    campaign_name: str
    type: CampaignType | str
    status: CampaignStatus | str = "stop"
    mode_call: ModeCall | str = "direct"
    concurrent_call: int = 0


class RowPage(BaseModel, Generic[T]):
    """The paging envelope (spec section 2) around the rows of a listing, frozen whole:
    the rows in a tuple, each row of a frozen model (``CampaignRow``; only such a ``T``
    belongs here), unknown fields ignored.  Nothing in it can
    change, so an answer read once serves every request given the same bytes
    (``callcenter._responses``): a campaign listing is read on every ``/callops
    campaigns`` and is the same until someone edits a campaign."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    data: tuple[T, ...] = ()
    limit: int = 0
    offset: int = 0
    total: int = 0


class CampaignUpdate(Campaign):
    """PUT /v3/campaign/{uuid} body: the campaign's fields, ``campaign_name`` and ``type``
    required.  The service resets what the body omits, so callers send a full body
    (see ``CampaignsResource.set_status``)."""

    campaign_uuid: str = ""


class CampaignUpdated(WireModel):
    campaign_uuid: str


# --- 2.6 template -----------------------------------------------------------------------


class Prompt(WireModel):
    """A spoken prompt: an audio file or TTS text (press options, exit and invalid sounds)."""

    enable: bool | None = None
    voice_type: Literal["audio_file", "tts"] | str = "tts"
    audio_file: str | None = None
    content: str | None = None


class Template(WireModel):
    template_uuid: str
    template_name: str = ""
    description: str = ""
    voice_type: Literal["audio_file", "tts"] | str = "tts"
    audio_file: str = ""
    content: str = ""
    voice_tts: str = ""
    speed_tts: float = 1.0
    enable_option: bool = False
    press_options: list[dict[str, Prompt]] | None = None
    press_timeout: int = 0
    inter_digit_timeout: int = 0
    max_timeout: int = 0
    exit_sound: Prompt | None = None
    invalid_sound: Prompt | None = None


# --- 2.7 lead, 2.8 list -----------------------------------------------------------------


class Lead(WireModel):
    domain_uuid: str = ""
    lead_uuid: str
    list_uuid: str = ""
    lead_name: str = ""
    lead_code: str = ""
    phone_number: str = ""
    contract_number: str = ""
    status: str = "NEW"
    alt_status: str = "new"
    identity_number: str = ""
    identity_issued_at: str = ""
    identity_issued_on: str = ""
    other_identity_number: str = ""
    other_identity_issued_at: str = ""
    other_identity_issued_on: str = ""
    address: str = ""
    province: str = ""
    district: str = ""
    ward: str = ""
    date_of_birth: str = ""
    gender: str = ""
    additional: str = ""
    after_day: int = 0
    called_count: int = 0
    last_call_time: str = ""
    created_at: str = ""
    updated_at: str = ""
    hopper_id: int = 0
    comment: str = ""
    ref_id: str = ""
    ref_code: str = ""
    network: str = ""
    campaign_uuid: str = ""
    campaign_name: str = ""
    list_name: str = ""
    assign_user_uuid: str = ""
    assign_username: str = ""


class LeadList(WireModel):
    """A list of leads (spec 2.8; named ``LeadList`` to keep clear of the builtin)."""

    domain_uuid: str = ""
    list_uuid: str
    list_name: str = ""
    campaign_uuid: str = ""
    campaign_name: str = ""
    description: str = ""
    reset_time: str = ""
    active: bool = True
    user_uuid: str = ""
    username: str = ""
    firstname: str = ""
    middlename: str = ""
    lastname: str = ""
    created_at: str = ""
    updated_at: str = ""
    total_leads: int = 0
    total_fields: int = 0
    total_upload: int = 0
    total_success: int = 0
    total_fail: int = 0
    recall_status: list[str] | None = None


LEAD_OPTIONAL_FIELDS: tuple[str, ...] = (
    "lead_name",
    "lead_code",
    "contract_number",
    "identity_number",
    "identity_issued_at",
    "identity_issued_on",
    "address",
    "province",
    "district",
    "ward",
    "date_of_birth",
    "additional",
    "gender",
)
"""Optional members of POST /v3/lead, in the spec's order (4.4)."""


class LeadCreate(WireModel):
    list_uuid: str
    phone_number: str
    lead_name: str | None = None
    lead_code: str | None = None
    contract_number: str | None = None
    identity_number: str | None = None
    identity_issued_at: str | None = None
    identity_issued_on: str | None = None
    address: str | None = None
    province: str | None = None
    district: str | None = None
    ward: str | None = None
    date_of_birth: str | None = None
    additional: str | None = None
    gender: str | None = None

    def to_wire(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


class LeadCreated(WireModel):
    created: bool
    lead_uuid: str = ""


class LeadMultiItem(WireModel):
    phone_number: str
    lead_name: str | None = None
    contract_number: str | None = None
    after_day: int | None = None


class LeadMultiCreate(WireModel):
    list_uuid: str
    data: list[LeadMultiItem]

    def to_wire(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


class LeadMultiResult(WireModel):
    message: str = ""
    total_insert: int = 0


class LeadFileAccepted(WireModel):
    msg: str = ""


# --- 4.5 autocall -----------------------------------------------------------------------


class AutocallImport(WireModel):
    campaign_uuid: str
    phone_number: str
    param: dict[str, str]


class AutocallResult(WireModel):
    call_id: str = ""
    lead_uuid: str = ""
    message: str = ""


# --- 4.6 user and group writes ----------------------------------------------------------


class UserUpdate(WireModel):
    username: str
    level: str
    role_uuid: str
    password: str
    confirm_password: str
    user_uuid: str | None = None
    email: str | None = None
    first_name: str | None = None
    extension: str | None = None
    is_create_extension: bool | None = None
    is_active: bool | None = None
    enable_webrtc: bool | None = None

    def to_wire(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)

    def __repr_args__(self) -> Any:
        # Passwords never reach a log line through repr().
        for name, value in super().__repr_args__():
            yield name, ("***" if name in {"password", "confirm_password"} else value)


class UserUpdated(WireModel):
    extension_uuid: str = ""
    user_uuid: str = ""


class GroupCreate(WireModel):
    group_name: str
    group_description: str | None = None

    def to_wire(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


class GroupCreated(WireModel):
    created: bool
    group_uuid: str = ""


class GroupUpdate(WireModel):
    group_name: str
    group_description: str | None = None
    group_priority: int | None = None
    user_assigns: list[str] | None = None
    campaign_assigns: list[str] | None = None
    department_uuid: str | None = None

    def to_wire(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


class GroupUpdated(WireModel):
    data: Group
    message: str = ""


# --- 2.10 .. 2.13 -----------------------------------------------------------------------


class CarrierData(WireModel):
    caller_id: str = ""
    prefix_operator_a: str | None = None
    prefix_operator_b: str | None = None
    prefix_operator_c: str | None = None
    prefix_operator_d: str | None = None
    prefix_offnet: str | None = None


class Carrier(WireModel):
    domain_uuid: str = ""
    carrier_uuid: str
    carrier_name: str = ""
    gateway_uuid: str = ""
    caller_id: str = ""
    description: str = ""
    dial_type: Literal["channel_prefix", "sip_one_for_all"] | str = ""
    status: bool = True
    created_at: str = ""
    updated_at: str = ""
    network: Network | None = None
    data: CarrierData | None = None
    concurrent_call: int = 0
    carrier_remaining_ccu: Network | None = None
    remaining_concurrent_call: int = 0
    groups: list[Any] | None = None


class Gateway(WireModel):
    gateway_uuid: str
    domain_uuid: str = ""
    gateway: str = ""
    description: str = ""


class BlacklistEntry(WireModel):
    id: str
    phone_number: str = ""
    description: str = ""


class ActiveCall(WireModel):
    call_id: str
    context: str = ""
    created_time: str = ""
    destination: str = ""
    direction: str = ""
    ip: str = ""
    source: str = ""
    state: str = ""


class ActiveCallList(WireModel):
    data: list[ActiveCall] = Field(default_factory=list)
    total: int = 0


class TransferRequest(WireModel):
    ext: str
    legs: Leg


class TransferResult(WireModel):
    status: str
    call_id: str = ""
    ext: str = ""


# --- 2.9 CDR ----------------------------------------------------------------------------


class Cdr(WireModel):
    id: str
    parent_id: str = ""
    sip_call_id: str = ""
    cause: str = ""
    duration: int = 0
    billsec: int = 0
    direction: Direction | str = ""
    status: str = ""
    recording_url: str = ""
    autocall_recording_url: str = ""
    extension: str = ""
    from_number: str = ""
    to_number: str = ""
    receive_dest: str = ""
    time_started: str = ""
    time_answered: str = ""
    time_ended: str = ""
    time_ringging: str = ""
    time_presskey: str = ""
    app: str = ""
    press_key: str = ""
    digits: str = ""
    fullname: str = ""
    email: str = ""
    username: str = ""
    sip_hangup_disposition: str = ""
    campaign_uuid: str = ""
    lead_uuid: str = ""
    rate: str = ""
    note: str = ""
    customer_fullname: str = ""
    customer_email: str = ""
    demand_customer: str = ""
    interest_segment: str = ""
    additional: dict[str, Any] | None = None
    autocall_presskey_epoch: str = ""
    presskey_delay: int = 0


# --- 4.2 / 4.3 reports ------------------------------------------------------------------


class ReportUser(WireModel):
    """Row of GET /v3/report/call/user."""

    user_uuid: str = ""
    extension_uuid: str = ""
    domain_uuid: str = ""
    extension: str = ""
    username: str = ""
    first_name: str = ""
    middle_name: str = ""
    last_name: str = ""
    level: str = ""
    email: str = ""
    groups: list[Any] | None = None
    departments: list[Any] | None = None
    add_date: str = ""


class ReportUserList(WireModel):
    data: list[ReportUser] = Field(default_factory=list)


class ExtensionCounters(WireModel):
    """Row of GET /v2/report/extension."""

    answered: int = 0
    busy: int = 0
    busy_line: int = 0
    cancel: int = 0
    extension: str = ""
    extension_id: str = ""
    firstname: str = ""
    inbound: int = 0
    invalid: int = 0
    lastname: str = ""
    local: int = 0
    middlename: str = ""
    no_answered: int = 0
    not_available: int = 0
    outbound: int = 0
    total: int = 0
    user_id: str = ""
    username: str = ""


class ExtensionReport(WireModel):
    code: int = 200
    content: str = ""
    data: list[ExtensionCounters] = Field(default_factory=list)


class ExtensionTotals(WireModel):
    total_duration: int = 0
    total_billsec: int = 0
    total_waitsec: int = 0
    total_call: int = 0
    total_answered: int = 0
    total_no_answered: int = 0
    total_busy: int = 0
    total_not_available: int = 0
    total_cancel: int = 0
    total_invalid: int = 0
    total_inbound: int = 0
    total_outbound: int = 0
    total_local: int = 0


class ExtensionPerson(ExtensionTotals):
    """An extension's totals with the person it belongs to, common to both summaries."""

    user_uuid: str = ""
    username: str = ""
    last_name: str = ""
    middle_name: str = ""
    first_name: str = ""
    extension: str = ""
    extension_uuid: str = ""
    email: str = ""
    departments: list[Any] | None = None
    leaders: list[Any] | None = None
    managers: list[Any] | None = None


class ExtensionSummary(ExtensionPerson):
    """Row of GET /v2/report/extension/summary."""

    time: str = ""
    groups: list[Any] | None = None


class ExtensionSummaryList(WireModel):
    data: list[ExtensionSummary] = Field(default_factory=list)


class DayReport(WireModel):
    time: str = ""
    total_call: int = 0
    total_invalid: int = 0
    total_inbound: int = 0
    total_outbound: int = 0


class ExtensionSummaryDay(ExtensionPerson):
    """Row of GET /v2/report/extension/summary/day."""

    add_date: str = ""
    groups: list[Group] | None = None
    reports: list[DayReport] = Field(default_factory=list)


class ExtensionSummaryDayList(WireModel):
    data: list[ExtensionSummaryDay] = Field(default_factory=list)


class AgentTime(WireModel):
    """Row of GET /v2/report/agent/time."""

    user_uuid: str = ""
    domain_uuid: str = ""
    username: str = ""
    last_name: str = ""
    middle_name: str = ""
    first_name: str = ""
    latest_time: str = ""
    earliest_time: str = ""
    total_pause_sec: int = 0
    total_wait_sec: int = 0
    total_talk_sec: int = 0
    total_dispo_sec: int = 0


class AgentTimeList(WireModel):
    data: list[AgentTime] = Field(default_factory=list)


class StatsRow(WireModel):
    """Row of GET /v2/stats: counters for one time bucket."""

    answered: int = 0
    busy: int = 0
    busy_line: int = 0
    cancel: int = 0
    congestion: int = 0
    inbound: int = 0
    invalid: int = 0
    ivr: int = 0
    local: int = 0
    no_answered: int = 0
    not_available: int = 0
    outbound: int = 0
    phone_block: int = 0
    time: str = ""
    total: int = 0
    total_billsec: int = 0
    total_duration: int = 0
    total_waitsec: int = 0


class StatsList(WireModel):
    data: list[StatsRow] = Field(default_factory=list)


class AutodialerTotals(WireModel):
    total_imported: int = 0
    total_new: int = 0
    total_recall: int = 0
    total_called: int = 0
    total_handled: int = 0
    total_not_handled: int = 0
    total_dropped_calls: int = 0
    total_not_connected_customers: int = 0


class AutodialerStats(WireModel):
    """Item of GET /v3/monitor-stats/campaign/autodialer (spec 4.3)."""

    campaign_name: str = ""
    campaign_uuid: str = ""
    type: str = ""
    mode_call: str = ""
    status: str = ""
    total_leads: int = 0
    leads_in_progress: int = 0
    dropped_calls: int = 0
    dropped_call_rate: float = 0.0
    total_calls: int = 0
    total_connected_customers: int = 0
    customer_connection_rate: float = 0.0
    connected_agents: int = 0
    agents_ready: int = 0
    agents_pause: int = 0
    agents_in_call: int = 0
    total_agents: int = 0
    created_at: str = ""
    last_call_time: str = ""
    statistics: AutodialerTotals = Field(default_factory=AutodialerTotals)


# --- section 7 error bodies -------------------------------------------------------------


class FieldErrorBody(WireModel):
    """``{"error": [{"<field>": "<message>"}, ...]}``: field validation failures."""

    error: list[dict[str, str]]


class StringErrorBody(WireModel):
    """``{"error": "<message>"}``: every other failure."""

    error: str


class TransferFailBody(WireModel):
    """``{"status": "fail", "error": "<code>"}``: a failed call transfer."""

    status: Literal["fail"]
    error: str
