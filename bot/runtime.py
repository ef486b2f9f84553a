"""The composition root: every long-lived collaborator of one process, made once.

``Runtime.open`` (or ``Runtime.build`` on an already open storage) wires them; each takes
only what it uses (the storage, the service clients, the bot's Slack clients, the time-zone
lookup), never the runtime.  Listeners get the runtime through ``register(app, runtime)``,
never through globals, so a test can run two apps (two processes' worth of state) side by
side.  Starting and stopping the workers (scheduler, call feed, the families' jobs) is the
business of whoever serves: ``bot.server`` and the entry points in ``bot.cli_app``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

from slack_sdk.web.async_client import AsyncWebClient

from bot import logs
from bot.background import CLOSE_GRACE, BackgroundTasks
from bot.call_feed import CallFeed
from bot.context_lookups import RoleResolver, SlackPerson, TeamZones
from bot.digest_post import DigestPoster
from bot.digest_scheduler import DigestScheduler
from bot.metrics import DatabaseFigures, Metrics
from bot.post_ledger import PostLedger
from bot.posting import BotClients, ChannelPace, SlackOutbox
from bot.service_clients import ServiceClients
from bot.settings import Settings
from bot.slack_ports import ResponseUrls, WebApiFiles, WebApiLookup, WebApiMessenger
from bot.token_rotation import TokenRefresher
from callcenter.addresses import Resolver, ServiceAddresses, SystemResolver
from commands.families import FAMILIES
from commands.kernel.audiences import for_channel, for_person
from commands.kernel.context import AppPorts, CommandContext
from commands.kernel.family import Family
from commands.kernel.i18n import Audience
from commands.kernel.phones import start_shown
from commands.registry import Registry, build_registry
from storage import (
    DEFAULT_ROLE,
    WORKFLOWS,
    Person,
    Requester,
    Role,
    SecretBox,
    Storage,
    Workspace,
)
from storage.errors import StorageBusyError
from storage.offload import off_loop

log = logging.getLogger(__name__)

LOCALE_REFRESH_SECONDS = 86_400.0
"""How long what Slack said of someone it is not asked about per request (an admin by
``CALLOPS_ADMINS`` or stored role) is trusted before it is asked again, after a request."""
FIRST_LOOK_SECONDS = 1.0
"""How long a request waits for ``users.info`` to learn a new person's language before
its first answer (commands answer after Slack's acknowledgement, within 3 s)."""


@dataclass
class Runtime:
    settings: Settings
    storage: Storage
    clients: ServiceClients
    """Each workspace's call-center client."""
    roles: RoleResolver
    bots: BotClients
    """The bot's Web API client per team, outside any request (digests, feed, sweeper)."""
    zones: TeamZones
    digests: DigestPoster
    """Posts digests (``digest run``, the scheduler) and tells the scheduler of changes."""
    scheduler: DigestScheduler
    """Posts due digests and checks alerts once a minute while started."""
    call_feed: CallFeed
    """Posts queued call records as cards while started (by the HTTP server, beside its
    receiver)."""
    metrics: Metrics
    """This process's metrics (``/metrics``); the database's figures read at each scrape."""
    registry: Registry
    """The app's tables (catalog, actions, routes), built from the families it was given;
    the listeners, the dispatcher and the workers read them from here."""
    tokens: TokenRefresher | None = None
    """Refreshes rotating Slack bot tokens, for Bolt and for ``bots`` alike (None for a
    single-workspace bot token, which does not rotate)."""
    background: BackgroundTasks = field(default_factory=BackgroundTasks)
    """Fire-and-forget tasks (a slash command run after its ack), finished on ``close``."""
    responses: ResponseUrls = field(default_factory=ResponseUrls)
    """The kept-alive session that answers through ``response_url`` go through."""
    _looking_up: set[tuple[str, str]] = field(default_factory=set)
    """People whose Slack locale is being looked up in the background right now."""
    addresses: ServiceAddresses = field(default_factory=ServiceAddresses)
    """Where the call-center service may be (``callcenter.addresses``), for every client."""
    ledger: PostLedger | None = None
    """Notes the customers' numbers each post shows (``bot.post_ledger``)."""
    held_claims: dict[str, asyncio.Task[bool | None]] = field(default_factory=dict)
    """Replay claims the database was too busy to take, held until it can, by the
    request's signature (``bot.listeners.context``)."""
    stopping: bool = False
    """Set once the process drains (SIGTERM, SIGINT: ``bot.server``): no approved action
    starts running any more (``AppPorts.stopping``)."""

    @classmethod
    def open(
        cls,
        settings: Settings,
        *,
        demo: bool = False,
        resolver: Resolver | None = None,
        families: Sequence[Family] = FAMILIES,
    ) -> Runtime:
        """Storage and collaborators for this process; refuses to run without a secret key
        unless in demo mode (storage.secrets says why).  ``resolver`` reads the service's
        host names (the system's unless a test gives its own); ``families``: what the app
        answers (``commands/families.py``)."""
        box = SecretBox.from_settings(settings.secret_keys, demo=demo)
        storage = Storage.open(settings.callops_db, box, default_timezone=settings.callops_timezone)
        return cls.build(settings, storage, resolver=resolver, families=families)

    @classmethod
    def build(
        cls,
        settings: Settings,
        storage: Storage,
        *,
        resolver: Resolver | None = None,
        families: Sequence[Family] = FAMILIES,
    ) -> Runtime:
        """The collaborators on an open ``storage`` (tests give it their own clock), for
        an app made of ``families``: every table the app reads is built from them here."""
        registry = build_registry(families)
        for secret in settings.secret_values():
            logs.remember_secret(secret)  # kept out of every log line from here on
        metrics = Metrics()
        metrics.watch_database(lambda: database_figures(storage))
        addresses = ServiceAddresses(settings.service_networks, resolver or SystemResolver())
        clients = ServiceClients(storage, settings, metrics=metrics, addresses=addresses)
        tokens = TokenRefresher.from_settings(settings, storage, metrics=metrics)
        bots = BotClients(settings, storage, tokens, metrics=metrics)
        zones = TeamZones(storage, settings.callops_timezone)
        ledger = PostLedger(storage, button=registry.reveal.button if registry.reveal else None)
        # the background senders' one pace per channel
        outbox = SlackOutbox(ChannelPace(), ledger=ledger)
        digests = DigestPoster(
            storage, clients, bots, outbox, digests=registry.digests, metrics=metrics
        )
        return cls(
            settings=settings,
            storage=storage,
            clients=clients,
            roles=RoleResolver(settings.admin_ids),
            bots=bots,
            zones=zones,
            digests=digests,
            scheduler=DigestScheduler(storage, digests),
            call_feed=CallFeed(storage, clients, bots, outbox, zones, feed=registry.feed),
            metrics=metrics,
            registry=registry,
            tokens=tokens,
            addresses=addresses,
            ledger=ledger,
        )

    async def context(
        self,
        client: AsyncWebClient,
        *,
        team_id: str,
        user_id: str,
        channel_id: str | None,
        offset: int = 0,
        known: Requester | None = None,
    ) -> CommandContext:
        """The command context of one request: role from Slack and storage, the team's
        service client, its time zone.  No call-center request is made here; the database
        is asked once (``Storage.requester``), off the event loop, unless the door read it
        with the request's replay claim (``known``)."""
        if known is None:
            known = await off_loop(self.storage.requester, team_id, user_id)
        stored_role, workspace, api_key, person = known
        role, said = await self.roles.role_given(client, team_id, user_id, stored_role)
        if said is None and not _language_known(person):
            said = await self._first_look(client, team_id, user_id)
        self._remember(client, team_id, user_id, person, said)
        locale = said.locale if said and said.locale else person.slack_locale if person else None
        tz = said.tz if said and said.tz else person.slack_tz if person else None
        return await self._context(
            client,
            team_id,
            user_id,
            channel_id,
            role,
            offset,
            (workspace, api_key),
            audience=for_person(person, workspace, locale, masked=not self._sees_numbers(role)),
            slack=(locale, tz),
        )

    def _sees_numbers(self, role: Role) -> bool:
        """Whether ``role`` reads customers' numbers in full (the role the app's families
        declare, ``Registry.reveal``; nobody when none does)."""
        reveal = self.registry.reveal
        return reveal is not None and role.at_least(reveal.role)

    def _remember(
        self,
        client: AsyncWebClient,
        team_id: str,
        user_id: str,
        person: Person | None,
        said: SlackPerson | None,
    ) -> None:
        """Keep what Slack said of the person when it changed (off the event loop, after
        this request); ask Slack in the background about someone never seen (or not for
        a day), so their next request reads their locale with their role.  Nothing here
        is waited on."""
        if said is not None:
            if said.locale is None and said.tz is None:
                return  # Slack could not say
            if person is None or (person.slack_locale, person.slack_tz) != (said.locale, said.tz):
                self.background.spawn(
                    self._store_seen(team_id, user_id, said), name="callops-person-seen"
                )
            return
        key = (team_id, user_id)
        fresh = (
            person is not None
            and person.seen_at is not None
            and (self.storage.clock() - person.seen_at < LOCALE_REFRESH_SECONDS)
        )
        if fresh or key in self._looking_up:
            return
        self._looking_up.add(key)
        self.background.spawn(self._look_up(client, key), name="callops-person-lookup")

    async def _first_look(
        self, client: AsyncWebClient, team_id: str, user_id: str
    ) -> SlackPerson | None:
        """Someone whose language nothing says yet (an admin the role check did not ask
        Slack about): ask ``users.info`` before the first answer, so it is in their
        language; past ``FIRST_LOOK_SECONDS`` (well inside Slack's 3 s) or on an error,
        the workspace's language, and the background lookup tries again."""
        try:
            async with asyncio.timeout(FIRST_LOOK_SECONDS):
                said = await self.roles.slack_person(client, team_id, user_id)
        except TimeoutError:
            log.info("users.info for %s was slow: the workspace's language this time", user_id)
            return None
        return said if said.locale is not None or said.tz is not None else None

    async def _look_up(self, client: AsyncWebClient, key: tuple[str, str]) -> None:
        try:
            said = await self.roles.slack_person(client, *key)
            if said.locale is not None or said.tz is not None:
                await self._store_seen(*key, said)
        finally:
            self._looking_up.discard(key)

    async def _store_seen(self, team_id: str, user_id: str, said: SlackPerson) -> None:
        try:
            await off_loop(self.storage.people.seen, team_id, user_id, said.locale, said.tz)
        except StorageBusyError:
            # The next request that asks Slack tries again; nothing is lost meanwhile.
            log.warning("could not remember the Slack locale of %s: database busy", user_id)
        except Exception:
            log.warning("could not remember the Slack locale of %s", user_id, exc_info=True)

    async def workflow_context(
        self, client: AsyncWebClient, team_id: str, actor: str
    ) -> CommandContext:
        """The context of a workflow step no person started (a schedule, an event, a
        webhook): it acts as ``actor`` (``workflow <id>``) with the role an admin gave
        workflows (``/callops role workflows``), the default (viewer) until then.  No
        Slack admin or ``CALLOPS_ADMINS`` rule applies: nobody is there to be one."""
        stored = await off_loop(self.storage.roles.stored_role, team_id, WORKFLOWS)
        role = stored or DEFAULT_ROLE
        return await self._context(client, team_id, actor, None, role, 0)

    async def system_context(self, client: AsyncWebClient, team_id: str) -> CommandContext:
        """The context of work nobody clicked (the expiry sweep, a schedule): the team's
        client, time zone and Slack, with no person and the least role."""
        return await self._context(client, team_id, "", None, Role.VIEWER, 0)

    async def _context(
        self,
        client: AsyncWebClient,
        team_id: str,
        user_id: str,
        channel_id: str | None,
        role: Role,
        offset: int,
        stored: tuple[Workspace | None, str | None] | None = None,
        *,
        audience: Audience | None = None,
        slack: tuple[str | None, str | None] = (None, None),
    ) -> CommandContext:
        if stored is None:  # one query, one trip off the event loop
            stored = await off_loop(self.storage.workspaces.get_with_key, team_id)
        workspace, api_key = stored
        binding = self.clients.binding_of(workspace, api_key)
        channel_audience = for_channel(workspace)
        start_shown()  # what this request writes for a channel is noted from here
        return CommandContext(
            team_id=team_id,
            user_id=user_id,
            channel_id=channel_id,
            role=role,
            tz=self.zones.of(workspace),
            cc=await self.clients.client_for(team_id, binding),
            workspace=workspace,
            base_url=binding.base_url if binding else None,
            offset=offset,
            storage=self.storage,
            slack=WebApiLookup(client),
            files=WebApiFiles(client, team=team_id, ledger=self.ledger),
            messenger=WebApiMessenger(
                client, responses=self.responses, team=team_id, ledger=self.ledger
            ),
            app=self.app_ports,
            audience=audience or channel_audience,
            channel_audience=channel_audience,
            slack_locale=slack[0],
            slack_tz=slack[1],
        )

    @functools.cached_property
    def app_ports(self) -> AppPorts:
        """What every context carries of this process, made once (``ctx.app``)."""
        return AppPorts(
            digests=self.digests,
            addresses=self.addresses,
            public_url=self.settings.callops_public_url,
            stopping=lambda: self.stopping,
        )

    def stop_starting(self) -> None:
        """The process drains: from now on no approved action starts running."""
        self.stopping = True

    async def close(self, grace: float = CLOSE_GRACE) -> None:
        """Let background tasks finish (for up to ``grace`` seconds), then close the
        connections (storage stays open: whoever opened the runtime closes it)."""
        await self.background.close(grace)
        await self.clients.close()
        await self.bots.close()
        await self.responses.close()


def database_figures(storage: Storage) -> DatabaseFigures:
    """The shared figures ``/metrics`` shows (blocking: read off the event loop)."""
    depth, oldest = storage.call_feed.depth_and_oldest()
    age = max(0.0, storage.clock() - oldest) if oldest is not None else 0.0
    approvals = {str(state): n for state, n in storage.approvals.count_by_state().items()}
    return DatabaseFigures(queue_depth=depth, queue_oldest_age=age, approvals=approvals)


def _language_known(person: Person | None) -> bool:
    """Whether the stored person says which language they read (their choice or their
    Slack locale as last seen)."""
    return person is not None and bool(person.language or person.slack_locale)
