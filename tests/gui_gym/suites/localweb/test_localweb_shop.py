"""LocalShop: what is particular to it (the generic checks of every template are in
test_localweb_templates.py): sample questions are facts of the state, and the shop's
validation (sizes, stock, promo codes, the address form, cancelling) holds, checked on the
app itself and, for the widgets, in the browser."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest

import gui_gym  # noqa: F401  (registers the GUI/* ids)
from gui_gym.suites.localweb.apps import shop
from gui_gym.suites.localweb.apps.shop.views_browse import query_products
from gui_gym.suites.localweb.apps.shop.data import initial_state, product
from gui_gym.suites.localweb.framework import Request, Response
from gui_gym.suites.localweb.oracle_ui import OracleUI
from gui_gym.suites.localweb.suite import LocalWebSuite


@pytest.fixture(scope="module")
def env():
    env = gym.make("GUI/LocalWeb-v0", apps=["shop"], observe_screenshot=False)
    yield env
    env.close()


# ---- the templates' questions ----------------------------------------------------------------

def test_sample_questions_are_facts_of_the_state():
    suite = LocalWebSuite(["shop"])
    offering = [t.template_id for t in shop.TEMPLATES
                if suite.make_task(t.template_id, 3).template.sample_questions(suite.new_world(3))]
    assert len(offering) >= 3
    world = suite.new_world(3)
    questions = suite.make_task("shop.add-to-cart", 3).template.sample_questions(world)
    first = min(world["shop"]["products"], key=lambda p: p["rank"])
    assert {"question": "Which product is listed first in the catalogue?", "answer": first["name"]}.items() \
        <= questions[1].items()
    assert all(q["answer"] not in q["distractors"] for q in questions)


# ---- widgets in the browser -------------------------------------------------------------------

def _run(env, actions) -> dict[str, Any]:
    obs = None
    for action in actions:
        obs, _, _, _, info = env.step(action)
        assert info["action_error"] is None, info["action_error"]
    return obs


def test_autocomplete_suggests_and_sort_menu_reorders(env):
    env.reset(seed=4, options={"task_id": "shop.add-to-wishlist"})
    ui = OracleUI(env.unwrapped.backend)
    _run(env, ui.type_into("#search", "Sneakers"))
    suggestions = ui.texts(".autocomplete [role=option]")
    assert suggestions and all("Sneakers" in s for s in suggestions)
    _run(env, ui.click(".catnav a[href$='cat=books']"))
    _run(env, ui.click("#sort-button"))
    assert not env.unwrapped.backend.evaluate("() => document.querySelector('.sort-menu [role=menu]').hidden")
    obs = _run(env, ui.click("[role=menu] a[data-sort='price-desc']"))
    assert "sort=price-desc" in obs["url"]
    prices = [float(t.lstrip("$").replace(",", "")) for t in ui.texts(".product-card .price")]
    assert prices == sorted(prices, reverse=True) and len(prices) > 3
    obs = _run(env, ui.click("#instock"))
    assert "instock=1" in obs["url"] and not ui.exists(".product-card .stock-note")


# ---- the app's rules, on its handler -----------------------------------------------------------

def _call(state: dict[str, Any], method: str, path: str, **form: str) -> Response:
    return shop.APP.handle(Request(method, path, {} if method == "POST" else form, form if method == "POST" else {}),
                           state)


def _text(response: Response) -> str:
    return response.body.decode()


def test_world_is_a_pure_function_of_the_seed():
    state = initial_state(5)
    assert state == initial_state(5) and state != initial_state(6)
    names = [p["name"] for p in state["products"]]
    assert 60 <= len(names) <= 120 and len(set(names)) == len(names)
    assert {p["category"] for p in state["products"]} >= {"electronics", "clothing", "books"}


def test_add_to_cart_needs_a_size_and_respects_stock():
    state = initial_state(1)
    sized = next(p for p in state["products"] if p["sizes"] and 1 <= p["stock"] < 10)
    response = _call(state, "POST", "/cart/add", product=sized["id"], qty="1")
    assert response.status == 422 and "Please choose a size." in _text(response) and state["cart"] == []
    response = _call(state, "POST", "/cart/add", product=sized["id"], size=sized["sizes"][0], qty=str(sized["stock"] + 1))
    assert response.status == 422 and f"Only {sized['stock']} left in stock." in _text(response)
    response = _call(state, "POST", "/cart/add", product=sized["id"], size=sized["sizes"][0], qty="1")
    assert response.status == 303 and [(ln["product"], ln["size"], ln["qty"]) for ln in state["cart"]] \
        == [(sized["id"], sized["sizes"][0], 1)]
    out = next(p for p in state["products"] if p["stock"] == 0)
    assert _call(state, "POST", "/cart/add", product=out["id"]).status == 422


def test_notices_keep_their_link_and_escape_what_the_url_brought():
    state = initial_state(1)
    plain = next(p for p in state["products"] if not p["sizes"] and p["stock"])
    assert _call(state, "POST", "/cart/add", product=plain["id"], qty="1").status == 303
    page = _text(_call(state, "GET", f"/product/{plain['id']}", added=str(state["cart"][0]["line"])))
    assert "<div class='notice' role='status'>Added to your cart: 1 ×" in page and "View cart</a></div>" in page
    cart = _text(_call(state, "GET", "/cart", reordered="<b>1001</b>"))
    assert "Items from order &lt;b&gt;1001&lt;/b&gt; were added" in cart and "<b>1001" not in cart


def test_promo_codes_are_validated():
    state = initial_state(2)
    codes = {c["kind"] if not c["expired"] else "expired": c for c in state["promos"]}
    cheap = min((p for p in state["products"] if p["stock"] and not p["sizes"]), key=lambda p: p["price"])
    _call(state, "POST", "/cart/add", product=cheap["id"], qty="1")
    response = _call(state, "POST", "/cart/promo", code="NOPE99")
    assert response.status == 422 and "We don&#x27;t recognise the code" in _text(response)
    assert "has expired" in _text(_call(state, "POST", "/cart/promo", code=codes["expired"]["code"]))
    assert "needs a subtotal of at least" in _text(_call(state, "POST", "/cart/promo", code=codes["amount"]["code"]))
    assert state["promo"] is None
    assert _call(state, "POST", "/cart/promo", code=codes["percent"]["code"].lower()).status == 303
    assert state["promo"] == codes["percent"]["code"]
    assert f"Code <b id='applied-code'>{state['promo']}</b> applied" in _text(_call(state, "GET", "/cart"))


def test_shipping_form_reports_each_bad_field_and_steps_cannot_be_skipped():
    state = initial_state(3)
    item = next(p for p in state["products"] if p["stock"] and not p["sizes"])
    _call(state, "POST", "/cart/add", product=item["id"], qty="1")
    skipped = _call(state, "GET", "/checkout/review")
    assert skipped.status == 303 and ("Location", "/shop/checkout/shipping") in skipped.headers
    response = _call(state, "POST", "/checkout/shipping", address="new", name="Ada Byron", street="Main Street",
                     city="", postcode="12ab")
    page = _text(response)
    assert response.status == 422 and state["checkout"]["address"] is None
    for message in ("Start the street address with a house number", "Enter the city.", "A postcode is exactly 5 digits."):
        assert message in page
    assert "value='Ada Byron'" in page
    response = _call(state, "POST", "/checkout/shipping", address="new", name="Ada Byron", street="12 Main Street",
                     city="Fairview", postcode="12345")
    assert response.status == 303 and state["checkout"]["address"]["city"] == "Fairview"
    assert _call(state, "POST", "/checkout/delivery").status == 422
    assert _call(state, "POST", "/checkout/delivery", delivery="express").status == 303
    _call(state, "POST", "/checkout/payment", payment="cod")
    placed = _call(state, "POST", "/checkout/place")
    order = state["orders"][0]
    assert placed.status == 303 and state["cart"] == [] and order["payment"] == "cod"
    assert order["total"] == item["price"] + 1299 and order["status"] == "Processing"


def test_cancelling_needs_a_reason_and_only_processing_orders_cancel():
    state = initial_state(4)
    processing = next(o for o in state["orders"] if o["status"] == "Processing")
    delivered = next(o for o in state["orders"] if o["status"] == "Delivered")
    response = _call(state, "POST", f"/orders/{processing['number']}/cancel", reason="")
    assert response.status == 422 and processing["status"] == "Processing"
    assert _call(state, "POST", f"/orders/{processing['number']}/cancel", reason="Changed my mind").status == 303
    assert processing["status"] == "Cancelled"
    assert _call(state, "POST", f"/orders/{delivered['number']}/cancel", reason="Changed my mind").status == 404
    assert delivered["status"] == "Delivered"


def test_listing_filters_and_sorts_from_the_url():
    state = initial_state(6)
    brand = next(p["brand"] for p in state["products"] if p["category"] == "shoes")
    slug = "brand-" + brand.lower().replace(" ", "-")
    view = query_products(state, Request("GET", "/", {"cat": "shoes", slug: "1", "max": "150", "instock": "1",
                                                      "sort": "price-asc"}, {}))
    assert view["items"], view
    assert all(p["category"] == "shoes" and p["brand"] == brand and p["price"] <= 15000 and p["stock"]
               for p in view["items"])
    assert [p["price"] for p in view["items"]] == sorted(p["price"] for p in view["items"])
    bad = query_products(state, Request("GET", "/", {"max": "cheap"}, {}))
    assert "is not a price" in bad["error"] and len(bad["items"]) == len(state["products"])
    assert product(state, "p001")["name"] in _text(_call(state, "GET", "/product/p001"))
    assert _call(state, "GET", "/product/nope").status == 404
