"""A local GraphQL helpdesk API for discovery tests (127.0.0.1, a free port): POST /graphql answers
the introspection query with a hand-written schema, and a `tickets` query with its records.

Schema (what the introspection answer says):

    type Query { tickets(first: Int, after: String): TicketConnection!   agents: [Person!]!
                 me: Person   version: String!   events(first: Int = 20 "at most 50"): EventConnection }
    type EventConnection { edges: [EventEdge]  pageInfo: PageInfo! }     scalar DateTime
    type EventEdge { cursor: String!  node: Event! }   type Event { at: DateTime!  kind: String }
    type TicketConnection { nodes: [Ticket!]!  pageInfo: PageInfo! }
    type PageInfo { hasNextPage: Boolean!  endCursor: String }
    type Ticket { id: ID!  subject: String!  priority: Priority  requester: Person!  tags: [String!]!
                  score: Float }
    type Person { email: String!  name: String  manager: Person }     enum Priority { LOW HIGH }

Only a request with the bearer TOKEN is answered (else 401); with `introspection = False` an
introspection query gets the 200 `errors` answer servers give when it is turned off. `wide = N`
adds N query fields `wide1..N: [Wide]`, a type of 300 keys; `pad_mb = M` pads the answer with a
description of M MiB. Every request
is recorded (path, headers, JSON body) for tests to assert what was sent.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.servers.json_api import send_json, serving

TOKEN = "gql-Planted-4e9a1c7b2d"  # planted: tests scan every output for it
TICKETS = [{"id": str(i), "subject": f"subject {i}", "priority": "HIGH" if i % 2 else "LOW",
            "requester": {"email": f"user{i}@example.org", "name": f"User {i}"}, "tags": [f"tag{i % 3}"],
            "score": i / 2} for i in range(1, 8)]
REFUSED = "GraphQL introspection is not allowed by Apollo Server, but the query contained __schema or __type."


def named(name: str, kind: str = "OBJECT") -> dict[str, Any]:
    return {"kind": kind, "name": name, "ofType": None}


def non_null(ref: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "NON_NULL", "name": None, "ofType": ref}


def list_of(ref: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "LIST", "name": None, "ofType": ref}


def scalar(name: str) -> dict[str, Any]:
    return named(name, "SCALAR")


def fields(*pairs: tuple[str, dict[str, Any]], args: dict[str, list[dict[str, Any]]] | None = None) -> list[Any]:
    return [{"name": name, "args": (args or {}).get(name, []), "type": ref} for name, ref in pairs]


SCHEMA = {"__schema": {"queryType": {"name": "Query"}, "types": [
    {"kind": "OBJECT", "name": "Query", "fields": fields(
        ("tickets", non_null(named("TicketConnection"))), ("agents", non_null(list_of(non_null(named("Person"))))),
        ("me", named("Person")), ("version", non_null(scalar("String"))), ("events", named("EventConnection")),
        args={"tickets": [{"name": "first", "type": scalar("Int")}, {"name": "after", "type": scalar("String")}],
              "events": [{"name": "first", "type": scalar("Int"), "defaultValue": "20",
                          "description": "Events a page, at most 50"}]})},
    {"kind": "OBJECT", "name": "TicketConnection", "fields": fields(
        ("nodes", non_null(list_of(non_null(named("Ticket"))))), ("pageInfo", non_null(named("PageInfo"))))},
    {"kind": "OBJECT", "name": "PageInfo", "fields": fields(
        ("hasNextPage", non_null(scalar("Boolean"))), ("endCursor", scalar("String")))},
    {"kind": "OBJECT", "name": "Ticket", "fields": fields(
        ("id", non_null(scalar("ID"))), ("subject", non_null(scalar("String"))),
        ("priority", named("Priority", "ENUM")), ("requester", non_null(named("Person"))),
        ("tags", non_null(list_of(non_null(scalar("String"))))), ("score", scalar("Float")))},
    {"kind": "OBJECT", "name": "Person", "fields": fields(
        ("email", non_null(scalar("String"))), ("name", scalar("String")), ("manager", named("Person")))},
    {"kind": "OBJECT", "name": "EventConnection", "fields": fields(
        ("edges", list_of(named("EventEdge"))), ("pageInfo", non_null(named("PageInfo"))))},
    {"kind": "OBJECT", "name": "EventEdge", "fields": fields(
        ("cursor", non_null(scalar("String"))), ("node", non_null(named("Event"))))},
    {"kind": "OBJECT", "name": "Event", "fields": fields(
        ("at", non_null(scalar("DateTime"))), ("kind", scalar("String")))},
    {"kind": "SCALAR", "name": "DateTime", "fields": None},
    {"kind": "ENUM", "name": "Priority", "fields": None, "enumValues": [{"name": "LOW"}, {"name": "HIGH"}]},
    {"kind": "SCALAR", "name": "String", "fields": None},
]}}


def schema(api: GraphQLApi) -> dict[str, Any]:
    """SCHEMA, with the wide query fields and the padding `api` asks for."""
    if not api.wide and not api.pad_mb:
        return SCHEMA
    query, *others = SCHEMA["__schema"]["types"]
    wide = fields(*((f"wide{i}", list_of(named("Wide"))) for i in range(1, api.wide + 1)))
    types = [{**query, "fields": query["fields"] + wide, "description": "x" * (api.pad_mb << 20)}, *others,
             {"kind": "OBJECT", "name": "Wide", "fields": fields(*((f"k{i}", scalar("Int")) for i in range(300)))}]
    return {"__schema": {**SCHEMA["__schema"], "types": types}}


@dataclass
class GraphQLApi:
    url: str = ""
    introspection: bool = True
    wide: int = 0
    pad_mb: int = 0
    requests: list[dict[str, Any]] = field(default_factory=list)

    @property
    def endpoint(self) -> str:
        return f"{self.url}/graphql"


@contextmanager
def graphql_api() -> Iterator[GraphQLApi]:
    api = GraphQLApi()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
            api.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                                 "body": body})
            if self.headers.get("authorization") != f"Bearer {TOKEN}":
                return send_json(self, 401, {"errors": [{"message": "unauthorized"}]})
            query = str(body.get("query", ""))
            if "__schema" in query:
                answer = {"data": schema(api)} if api.introspection else {"errors": [{"message": REFUSED}], "data": None}
                return send_json(self, 200, answer)
            variables = body.get("variables") or {}
            start, first = int(variables.get("after") or 0), int(variables.get("first") or 5)
            nodes = TICKETS[start:start + first]
            page = {"hasNextPage": start + first < len(TICKETS), "endCursor": str(start + len(nodes))}
            send_json(self, 200, {"data": {"tickets": {"nodes": nodes, "pageInfo": page}}})

    with serving(Handler) as api.url:
        yield api
