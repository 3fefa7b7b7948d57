"""What the shop's task templates share: reading the world, oracle moves, start-page questions.

Predicates read only the server's state (cart, orders, the shop's event history and the
request log); oracle moves act only through `OracleUI`, the way a user would: the search box
and its suggestions, option chips, the checkout's forms.
"""

from __future__ import annotations

import random
from typing import Any, Iterator

from gui_gym.actions import Action
from gui_gym.errors import ActionExecutionError, TaskConfigError
from gui_gym.runtime.waiting import wait_until
from gui_gym.suites.localweb.apps.shop.data import initial_state, money, the
from gui_gym.suites.localweb.apps.shop.views_browse import query_products
from gui_gym.suites.localweb.apps.shop.views_checkout import ADDRESS_FIELDS
from gui_gym.suites.localweb.framework import Request, log_has, seeded
from gui_gym.suites.localweb.oracle_ui import OracleUI
from gui_gym.suites.localweb.templates import TaskTemplate, World

ShopState = dict[str, Any]


# ---- reading the world ------------------------------------------------------------------------

def shop(world: World) -> ShopState:
    return world["shop"]


def visited(world: World, path: str, **query: str) -> bool:
    """Whether a page was loaded whose URL has `path` and at least these query values."""
    return log_has(shop(world)["log"], path, **query)


def listing(world: World, entry: dict[str, Any]) -> dict[str, Any]:
    """The catalogue view a logged listing request showed (`views_browse.query_products`)."""
    return query_products(shop(world), Request("GET", entry["path"], entry["query"], {}))


def brand_alone(world: World, entry: dict[str, Any], cat: str, brand: str) -> bool:
    """Whether a logged request loaded the catalogue page of category `cat` filtered by the
    brand `brand` alone (ticking every brand filters by none)."""
    return (entry["method"] == "GET" and entry["path"] == "/" and entry["query"].get("cat") == cat
            and listing(world, entry)["chosen"] == [brand])


def listed(world: World, cat: str, brand: str, **query: str) -> bool:
    """Whether a catalogue page of `cat` filtered by `brand` alone was loaded, with at least
    these query values."""
    return any(brand_alone(world, e, cat, brand) and all(e["query"].get(k) == str(v) for k, v in query.items())
               for e in shop(world)["log"])


def happened(world: World, kind: str, **data: Any) -> bool:
    """Whether the shop recorded a change of `kind` with these values."""
    return any(e["type"] == kind and all(e.get(k) == v for k, v in data.items()) for e in shop(world)["events"])


def placed_orders(world: World) -> list[dict[str, Any]]:
    """Orders placed during the episode (the account's history holds older ones)."""
    numbers = [e["number"] for e in shop(world)["events"] if e["type"] == "order"]
    return [o for o in shop(world)["orders"] if o["number"] in numbers]


def variants(lines: list[dict[str, Any]]) -> list[tuple[str, str | None, str | None, int]]:
    """Lines as sorted (product, colour, size, qty) tuples: what two carts or orders compare on."""
    return sorted((ln["product"], ln["colour"], ln["size"], ln["qty"]) for ln in lines)


def lines_match(lines: list[dict[str, Any]], expected: list[tuple[str, str | None, str | None, int]]) -> bool:
    """Whether cart or order `lines` are exactly `expected`; an expected colour of None means any colour."""
    loose = {pid for pid, colour, _, _ in expected if colour is None}
    got = sorted((ln["product"], None if ln["product"] in loose else ln["colour"], ln["size"], ln["qty"]) for ln in lines)
    return got == sorted(tuple(e) for e in expected)


def same_address(got: dict[str, str], want: dict[str, str]) -> bool:
    return all(" ".join(got.get(k, "").lower().split()) == " ".join(want[k].lower().split()) for k in ADDRESS_FIELDS)


def pick(rng: random.Random, items: list[Any], what: str) -> Any:
    if not items:
        raise TaskConfigError(f"the shop world of this seed has no {what} to draw a task from")
    return rng.choice(items)


def describe_options(colour: str | None, size: str | None) -> str:
    parts = [f"in {colour}" if colour else "", f"size {size}" if size else ""]
    return ", ".join(p for p in parts if p)


# ---- oracle moves ----------------------------------------------------------------------------

SUGGESTION_TIMEOUT_S = 10.0
"""How long the oracle waits for the suggestions of what it typed: one request per keystroke
can outlast the backend's settle bound on a loaded machine."""


def open_product(ui: OracleUI, name: str) -> Iterator[Action]:
    """Type the product's name in the search box and pick it from the suggestions."""
    yield from ui.type_into("#search", name, clear=True)
    options = wait_until(lambda: name in ui.texts(".autocomplete [role=option]")
                         and ui.texts(".autocomplete [role=option]"), SUGGESTION_TIMEOUT_S)
    if not options:
        raise ActionExecutionError(f"the search box never suggested {name!r}")
    yield from ui.click(".autocomplete [role=option]", nth=options.index(name))


def choose_options(ui: OracleUI, colour: str | None, size: str | None) -> Iterator[Action]:
    """Click the colour (unless already selected) and size chips on a product page."""
    if colour and not ui.exists(f"label[data-colour='{colour}'] input:checked"):
        yield from ui.click(f"label[data-colour='{colour}']")
    if size:
        yield from ui.click(f"label[data-size='{size}']")


def buy_now(ui: OracleUI, colour: str | None = None, size: str | None = None, qty: int = 1) -> Iterator[Action]:
    """On a product page: options, quantity, Add to cart."""
    yield from choose_options(ui, colour, size)
    if qty != 1:
        yield from ui.choose("#qty", str(qty))
    yield from ui.click("#add-to-cart")


def filter_category(ui: OracleUI, cat: str, *, brand_slug: str = "", max_price: str = "",
                    instock: bool = False) -> Iterator[Action]:
    """Open a category from the category bar and apply the sidebar filters asked for."""
    yield from ui.click(f".catnav a[href$='cat={cat}']")
    if brand_slug:
        yield from ui.click(f"#filters input[name='brand-{brand_slug}']")
    if max_price:
        yield from ui.type_into("#max-price", max_price, clear=True)
        yield ui.press("enter")
    if instock:
        yield from ui.click("#instock")


def sort_by(ui: OracleUI, key: str) -> Iterator[Action]:
    yield from ui.click("#sort-button")
    yield from ui.click(f"[role=menu] a[data-sort='{key}']")


def checkout(ui: OracleUI, address: str | dict[str, str], delivery: str, payment: str = "card",
             *, from_cart: bool = False) -> Iterator[Action]:
    """From any page (or the cart): through the four checkout steps to a placed order.
    `address` is a saved address's label or a new address's fields."""
    if not from_cart:
        yield from ui.click("#cart-link")
    yield from ui.click("#checkout")
    if isinstance(address, dict):
        yield from ui.click("#address-new")
        for key in ADDRESS_FIELDS:
            yield from ui.type_into(f"#ship-{key}", address[key], clear=True)
    elif not ui.exists(f"input[name=address][value='{address.lower()}']:checked"):
        yield from ui.click(f"input[name=address][value='{address.lower()}']")
    yield from ui.click("#continue")
    yield from ui.click(f"input[name=delivery][value='{delivery}']")
    yield from ui.click("#continue")
    if payment != "card":
        yield from ui.click(f"input[name=payment][value='{payment}']")
    yield from ui.click("#continue")
    yield from ui.click("#place-order")


# ---- start-page questions (the catalogue's first row, the cart badge) -----------------------

def home_questions(world: World, seed: int) -> list[dict[str, Any]]:
    """Multiple-choice facts visible on the shop's front page at 1280x720."""
    state = shop(world)
    first_row = sorted(state["products"], key=lambda p: p["rank"])[:4]
    rng = seeded(seed, "shop.questions")
    target = rng.choice(first_row)
    others = [p for p in state["products"] if p["price"] != target["price"]]
    prices = sorted({money(p["price"]) for p in rng.sample(others, 3)})
    items = sum(line["qty"] for line in state["cart"])
    return [
        {"question": f"What is the price of {the(target['name'])} shown on the page?",
         "answer": money(target["price"]), "distractors": prices},
        {"question": "Which product is listed first in the catalogue?", "answer": first_row[0]["name"],
         "distractors": [p["name"] for p in first_row[1:]]},
        {"question": "How many items does the cart badge show?", "answer": str(items),
         "distractors": [str(n) for n in (items + 1, items + 2, items + 3)]},
        {"question": f"Which brand makes {the(target['name'])}?", "answer": target["brand"],
         "distractors": sorted({p["brand"] for p in state["products"] if p["brand"] != target["brand"]})[:3]},
    ]


class ShopTemplate(TaskTemplate):
    """What every shop template shares: the app, its seeded state, its start-page facts."""

    app = "shop"
    initial_state = staticmethod(initial_state)

    def app_questions(self, world: World) -> list[dict[str, Any]]:
        return home_questions(world, self.seed)
