"""The shop's page frame and the small pieces every shop page shares.

One frame (top bar with search and the cart badge, category bar) around every page, so an
agent always has the same way home, to the cart and to the search box.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from gui_gym.suites.localweb.apps.shop.data import CATEGORIES
from gui_gym.suites.localweb.framework import SHARED_STATIC, Response, assets, esc, html_response, page

BASE = "/shop"
STATIC = Path(__file__).parent / "static"
HEAD = assets(STATIC / "shop.css", SHARED_STATIC / "widgets.js", STATIC / "shop.js")


def url(path: str, **params: Any) -> str:
    """An app URL with the non-empty `params` as its query string."""
    query = urlencode({k: v for k, v in params.items() if v not in (None, "", False)})
    return f"{BASE}{path}" + (f"?{query}" if query else "")


def shell(state: dict[str, Any], title: str, body: str, *, cat: str = "", q: str = "", listing: bool = False,
          status: int = 200) -> Response:
    """A full shop page: top bar, category bar (its current entry marked on catalogue pages), then `body`."""
    items = sum(line["qty"] for line in state["cart"])
    cats = "".join(f"<a href='{url('/', cat=key)}'{' class=active aria-current=page' if key == cat else ''}>"
                   f"{esc(spec['title'])}</a>" for key, spec in CATEGORIES.items())
    nav = (
        "<header class='topbar shop-topbar'>"
        f"<a class='brand' href='{BASE}/'>LocalShop</a>"
        f"<form class='shop-search' action='{BASE}/' role='search'>"
        f"<div class='autocomplete'><input id='search' name='q' type='search' value='{esc(q)}' autocomplete='off' "
        f"data-suggest='{BASE}/api/suggest?q=' placeholder='Search products' aria-label='Search products'></div>"
        "<button id='search-button'>Search</button></form><span class='spacer'></span>"
        f"<a href='{BASE}/deals'>Deals</a>"
        f"<a href='{BASE}/wishlist' id='wishlist-link'>Wishlist <span class='badge'>{len(state['wishlist'])}</span></a>"
        f"<a href='{BASE}/orders' id='orders-link'>Orders</a>"
        f"<a href='{BASE}/cart' id='cart-link' aria-label='Cart, {items} items'>Cart "
        f"<span class='badge' id='cart-count'>{items}</span></a></header>"
        "<nav class='catnav' aria-label='Categories'>"
        f"<a href='{BASE}/'{' class=active' if listing and not cat and not q else ''}>"
        f"All products</a>{cats}</nav>"
    )
    return html_response(page(f"{title} · LocalShop", body, app="shop", app_assets=HEAD, nav=nav), status)


def thumb(prod: dict[str, Any], small: bool = False) -> str:
    """A product picture stand-in: the product's initials on a colour of its own."""
    hue = int(prod["id"][1:]) * 47 % 360
    words = [w for w in prod["name"].split() if w[0].isalpha()]
    initials = "".join(w[0] for w in words[-2:]).upper()
    return (f"<div class='thumb{' small' if small else ''}' style='background:hsl({hue},45%,84%)' "
            f"aria-hidden='true'>{esc(initials)}</div>")


def stars(rating: float) -> str:
    full = int(rating + 0.5)
    return (f"<span class='stars' aria-label='Rated {rating} out of 5'>{'★' * full}{'☆' * (5 - full)}</span> "
            f"<span class='rating-value'>{rating}</span>")


def stock_text(prod: dict[str, Any]) -> str:
    if prod["stock"] == 0:
        return "<span class='stock out'>Out of stock</span>"
    if prod["stock"] <= 5:
        return f"<span class='stock low'>Only {prod['stock']} left in stock</span>"
    return f"<span class='stock in'>In stock ({prod['stock']} available)</span>"


def options_text(line: dict[str, Any]) -> str:
    parts = [f"Colour: {line['colour']}" if line["colour"] else "", f"Size: {line['size']}" if line["size"] else ""]
    return " · ".join(p for p in parts if p)


def error(text: str) -> str:
    return f"<p class='error' role='alert'>{esc(text)}</p>" if text else ""
