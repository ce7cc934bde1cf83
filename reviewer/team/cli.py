"""``reviewer team ...``: init, add, remove, list, assign, blind (registered by reviewer.cli)."""

from __future__ import annotations

import argparse

from reviewer.team.sql import DEFAULT_PREFIX


def _store(args):
    from reviewer.store import Store

    return Store(args.db)


def cmd_init(args) -> int:
    from reviewer import team

    roles = team.init(_store(args), args.prefix)
    print("team mode on: roles " + ", ".join(roles) + " with row-level security.\n"
          "Add members with: reviewer team add LOGIN --role annotator|adjudicator|admin --db URL")
    return 0


def cmd_add(args) -> int:
    from reviewer import team

    print(team.add(_store(args), args.login, args.role))
    return 0


def cmd_remove(args) -> int:
    from reviewer import team

    team.remove(_store(args), args.login)
    print(f"{args.login} has no team role any more (the PostgreSQL login itself is unchanged)")
    return 0


def cmd_list(args) -> int:
    from reviewer import team

    members = team.members(_store(args))
    if not members:
        print("no members yet; add one with: reviewer team add LOGIN --role annotator")
    for m in members:
        print(f"{m.login}\t{m.role}")
    return 0


def cmd_assign(args) -> int:
    from reviewer.review import Review
    from reviewer.review.assignment import assign

    store = _store(args)
    review = Review(store, args.actor)
    ds = store.dataset(args.dataset)
    chosen = assign(review, ds.id, args.annotators.split(","), k=args.k, seed=args.seed)
    loads: dict[str, int] = {}
    for names in chosen.values():
        for n in names:
            loads[n] = loads.get(n, 0) + 1
    print(f"{len(chosen)} items of {ds.name}, {args.k} annotators each (seed {args.seed}): "
          + ", ".join(f"{a} {n}" for a, n in sorted(loads.items())))
    return 0


def cmd_blind(args) -> int:
    """Turn a dataset's blindness to model identity on or off (adjudicators and admins)."""
    from reviewer.review import Review

    store = _store(args)
    review = Review(store, args.actor)
    ds = store.dataset(args.dataset)
    review.set_rule(ds.id, review.rule(ds.id), blind_models=not args.off)
    print(f"{ds.name}: annotators see runs as " + ("their names" if args.off else
                                                  '"Output 1, 2, 3" (shuffled per item), never run or model names'))
    return 0


def add_parser(sub, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("team", help="team mode on PostgreSQL: members, roles, assignments")
    tsub = p.add_subparsers(dest="what", metavar="WHAT", required=True)
    t = tsub.add_parser("init", parents=[common], help="create the roles, grants and row-level security")
    t.add_argument("--prefix", default=DEFAULT_PREFIX, help=f"role name prefix (default {DEFAULT_PREFIX})")
    t.set_defaults(func=cmd_init)
    t = tsub.add_parser("add", parents=[common], help="give a PostgreSQL login a team role")
    t.add_argument("login")
    t.add_argument("--role", choices=["annotator", "adjudicator", "admin"], required=True)
    t.set_defaults(func=cmd_add)
    t = tsub.add_parser("remove", parents=[common], help="take a login's team roles away")
    t.add_argument("login")
    t.set_defaults(func=cmd_remove)
    t = tsub.add_parser("list", parents=[common], help="list the members and their roles")
    t.set_defaults(func=cmd_list)
    t = tsub.add_parser("assign", parents=[common], help="give each item of a dataset to k annotators")
    t.add_argument("dataset")
    t.add_argument("--annotators", required=True, help="comma-separated logins (or local profiles)")
    t.add_argument("-k", type=int, default=2, help="annotators per item (default 2)")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--actor", default="admin", help="local profile making the assignment (SQLite only)")
    t.set_defaults(func=cmd_assign)
    t = tsub.add_parser("blind", parents=[common], help="annotators see a dataset's runs as Output 1, 2, 3")
    t.add_argument("dataset")
    t.add_argument("--off", action="store_true", help="show annotators the run names again")
    t.add_argument("--actor", default="admin", help="local profile of an adjudicator (SQLite only)")
    t.set_defaults(func=cmd_blind)
