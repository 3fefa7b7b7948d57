"""Buying pages: the cart (quantities, promo codes), the four checkout steps (shipping
address with validation, delivery, payment, review) and the order history with its order
pages (buy again, cancel in a dialog).
"""

from __future__ import annotations

from typing import Any

from gui_gym.suites.localweb.apps.shop.data import (CANCEL_REASONS, DELIVERY, ORDERS_PAGE_SIZE, discount, money,
                                                    product, promo, promo_error, shipping, subtotal)
from gui_gym.suites.localweb.apps.shop.views import BASE, error, options_text, shell, thumb, url
from gui_gym.suites.localweb.framework import Response, esc, notice

STEPS = ("shipping", "delivery", "payment", "review")
ADDRESS_FIELDS = {"name": "Full name", "street": "Street address", "city": "City", "postcode": "Postcode"}


def _line_attrs(line: dict[str, Any]) -> str:
    return (f"data-product='{line['product']}' data-colour='{esc(line['colour'] or '')}' "
            f"data-size='{esc(line['size'] or '')}'")


def _totals(lines: list[dict[str, Any]], code: dict[str, Any] | None, delivery: str | None) -> str:
    off, ship = discount(code, lines), shipping(delivery, code, lines)
    rows = [("Subtotal", money(subtotal(lines)))]
    if code is not None:
        rows.append((f"Promo {code['code']}", f"−{money(off)}"))
    rows.append(("Delivery", (money(ship) if ship else "Free") if delivery else "Calculated at checkout"))
    rows.append(("Total", money(subtotal(lines) - off + ship)))
    return "<table class='totals'>" + "".join(
        f"<tr{' class=grand' if label == 'Total' else ''}><th>{esc(label)}</th><td>{value}</td></tr>"
        for label, value in rows) + "</table>"


def cart_page(state: dict[str, Any], *, message: str = "", problem: str = "", promo_problem: str = "",
              typed_code: str = "", status: int = 200) -> Response:
    lines = state["cart"]
    rows = "".join(
        f"<tr class='cart-line' {_line_attrs(ln)}><td class='item'>{thumb(product(state, ln['product']), small=True)}"
        f"<div><a href='{BASE}/product/{ln['product']}'>{esc(ln['name'])}</a>"
        f"<div class='muted'>{esc(options_text(ln))}</div></div></td>"
        f"<td>{money(ln['price'])}</td><td><form method='post' action='{BASE}/cart/update' class='qty-form'>"
        f"<input type='hidden' name='line' value='{ln['line']}'>"
        "<input class='qty' name='qty' type='number' min='1' max='10' "
        f"value='{ln['qty']}' aria-label='Quantity of {esc(ln['name'])}'> "
        "<button class='secondary update'>Update</button></form></td>"
        f"<td>{money(ln['price'] * ln['qty'])}</td><td><form method='post' action='{BASE}/cart/remove'>"
        f"<input type='hidden' name='line' value='{ln['line']}'><button class='secondary remove' "
        f"aria-label='Remove {esc(ln['name'])}'>Remove</button></form></td></tr>" for ln in lines)
    code = promo(state, state["promo"]) if state["promo"] else None
    if code is not None:
        lapsed = promo_error(code, code["code"], lines)
        promo_box = (f"<div class='applied'>Code <b id='applied-code'>{code['code']}</b> applied. "
                     f"<form method='post' action='{BASE}/cart/promo/remove' class='inline'>"
                     "<button class='linkish' id='remove-code'>Remove code</button></form>"
                     f"{error(f'It no longer applies: {lapsed}' if lapsed else '')}</div>")
    else:
        promo_box = (f"<form method='post' action='{BASE}/cart/promo' class='promo-form'>"
                     "<label for='promo'>Promo code</label>"
                     f"<div class='row'><input id='promo' name='code' value='{esc(typed_code)}' placeholder='e.g. SAVE10'>"
                     f"<button id='apply-promo' class='secondary'>Apply</button></div>{error(promo_problem)}</form>")
    if not lines:
        body = (f"<h1>Your cart</h1>{notice(message, markup=True)}<p class='empty'>Your cart is empty. "
                f"<a href='{BASE}/'>Continue shopping</a></p>")
        return shell(state, "Cart", body, status=status)
    body = (
        f"<h1>Your cart</h1>{notice(message, markup=True)}{error(problem)}<div class='layout'><section class='content'>"
        f"<table class='cart'><tr><th>Item</th><th>Price</th><th>Quantity</th><th>Total</th><th></th></tr>{rows}</table>"
        f"</section><aside class='sidebar wide card'><h2>Summary</h2>{_totals(lines, code, None)}{promo_box}"
        f"<a class='button block' id='checkout' href='{BASE}/checkout'>Proceed to checkout</a></aside></div>")
    return shell(state, "Cart", body, status=status)


def _steps(current: str) -> str:
    items = "".join(f"<li class='{'current' if s == current else 'done' if STEPS.index(s) < STEPS.index(current) else ''}'>"
                    f"{i + 1}. {s.title()}</li>" for i, s in enumerate(STEPS))
    return f"<ol class='steps' aria-label='Checkout steps'>{items}</ol>"


def address_line(address: dict[str, str]) -> str:
    return f"{address['name']}, {address['street']}, {address['city']} {address['postcode']}"


def shipping_page(state: dict[str, Any], *, choice: str = "", values: dict[str, str] | None = None,
                  problems: dict[str, str] | None = None, status: int = 200) -> Response:
    current = state["checkout"]["address"]
    saved = state["account"]["addresses"]
    if not choice:
        choice = (current["label"].lower() if current else saved[0]["label"].lower())
    values = values or (current if current and current["label"] == "New" else {})
    problems = problems or {}
    options = "".join(
        f"<label class='address-option'><input type='radio' name='address' value='{a['label'].lower()}'"
        f"{' checked' if choice == a['label'].lower() else ''}> <b>{esc(a['label'])}</b> — {esc(address_line(a))}</label>"
        for a in saved)
    options += (f"<label class='address-option'><input type='radio' name='address' value='new' id='address-new'"
                f"{' checked' if choice == 'new' else ''}> <b>New address</b></label>")
    fields = "".join(
        f"<div class='field'><label for='ship-{key}'>{label}</label><input id='ship-{key}' name='{key}' "
        f"value='{esc(values.get(key, ''))}'{' aria-invalid=true' if key in problems else ''}>"
        f"{error(problems.get(key, ''))}</div>"
        for key, label in ADDRESS_FIELDS.items())
    body = (
        f"{_steps('shipping')}<h1>Shipping address</h1>"
        + (error("Please correct the highlighted fields.") if problems else "")
        + f"<form method='post' action='{BASE}/checkout/shipping' class='checkout-form'>"
        f"<fieldset class='addresses'><legend>Ship to</legend>{options}</fieldset>"
        f"<fieldset id='new-address' class='address-grid'{'' if choice == 'new' else ' disabled'}>"
        f"<legend>New address</legend>{fields}</fieldset>"
        "<button id='continue'>Continue to delivery</button></form>")
    return shell(state, "Checkout: shipping", body, status=status)


def delivery_page(state: dict[str, Any], problem: str = "", status: int = 200) -> Response:
    code = promo(state, state["promo"]) if state["promo"] else None
    chosen = state["checkout"]["delivery"]
    fees = {key: shipping(key, code, state["cart"]) for key in DELIVERY}
    options = "".join(
        f"<label class='delivery-option'><input type='radio' name='delivery' value='{key}'"
        f"{' checked' if key == chosen else ''}> <b>{name}</b> <span class='muted'>{days}</span> "
        f"<span class='fee'>{money(fees[key]) if fees[key] else 'Free'}</span></label>"
        for key, (name, days, _) in DELIVERY.items())
    body = (f"{_steps('delivery')}<h1>Delivery</h1>"
            f"<p class='muted'>Shipping to {esc(address_line(state['checkout']['address']))} · "
            f"<a href='{BASE}/checkout/shipping'>Change</a></p>{error(problem)}"
            f"<form method='post' action='{BASE}/checkout/delivery' class='checkout-form'><fieldset>"
            "<legend>Choose a delivery option"
            f"</legend>{options}</fieldset><button id='continue'>Continue to payment</button></form>")
    return shell(state, "Checkout: delivery", body, status=status)


def payment_page(state: dict[str, Any]) -> Response:
    chosen = state["checkout"]["payment"] or "card"
    methods = {"card": f"Saved card: {state['account']['card']}", "cod": "Cash on delivery"}
    options = "".join(
        "<label class='payment-option'>"
        f"<input type='radio' name='payment' value='{key}'{' checked' if key == chosen else ''}> "
        f"{esc(label)}</label>" for key, label in methods.items())
    body = (f"{_steps('payment')}<h1>Payment</h1><form method='post' action='{BASE}/checkout/payment' class='checkout-form'>"
            f"<fieldset><legend>Pay with</legend>{options}</fieldset><button id='continue'>Review order</button></form>")
    return shell(state, "Checkout: payment", body)


def review_page(state: dict[str, Any]) -> Response:
    co = state["checkout"]
    code = promo(state, state["promo"]) if state["promo"] else None
    items = "".join(f"<tr><td>{esc(ln['name'])}<div class='muted'>{esc(options_text(ln))}</div></td><td>{ln['qty']}</td>"
                    f"<td>{money(ln['price'] * ln['qty'])}</td></tr>" for ln in state["cart"])
    pay = f"Saved card: {state['account']['card']}" if co["payment"] == "card" else "Cash on delivery"
    body = (
        f"{_steps('review')}<h1>Review your order</h1><div class='layout'><section class='content'>"
        f"<table><tr><th>Item</th><th>Qty</th><th>Total</th></tr>{items}</table>"
        f"<p><b>Ship to:</b> {esc(address_line(co['address']))} <a href='{BASE}/checkout/shipping'>Change</a></p>"
        f"<p><b>Delivery:</b> {DELIVERY[co['delivery']][0]} <a href='{BASE}/checkout/delivery'>Change</a></p>"
        f"<p><b>Payment:</b> {esc(pay)} <a href='{BASE}/checkout/payment'>Change</a></p></section>"
        f"<aside class='sidebar wide card'>{_totals(state['cart'], code, co['delivery'])}"
        f"<form method='post' action='{BASE}/checkout/place'>"
        "<button id='place-order' class='block'>Place order</button></form>"
        "</aside></div>")
    return shell(state, "Checkout: review", body)


def _items_summary(order: dict[str, Any]) -> str:
    more = len(order["lines"]) - 1
    return order["lines"][0]["name"] + (f" and {more} more" if more else "")


def orders_page(state: dict[str, Any], page_arg: str) -> Response:
    orders = state["orders"]
    pages = max(1, -(-len(orders) // ORDERS_PAGE_SIZE))
    page_no = min(max(int(page_arg) if page_arg.isdigit() else 1, 1), pages)
    rows = "".join(
        f"<tr data-order='{o['number']}'><td><a href='{BASE}/orders/{o['number']}' aria-label='View order {o['number']}'>"
        f"{o['number']}</a></td><td>{o['date']}</td><td>{esc(_items_summary(o))}</td><td>{money(o['total'])}</td>"
        f"<td><span class='status {o['status'].lower()}'>{o['status']}</span></td></tr>"
        for o in orders[(page_no - 1) * ORDERS_PAGE_SIZE:page_no * ORDERS_PAGE_SIZE])
    pager = "".join(f"<span class='current' aria-current='page'>{n}</span>" if n == page_no else
                    f"<a href='{url('/orders', page=n)}' aria-label='Orders page {n}'>{n}</a>" for n in range(1, pages + 1))
    body = (f"<h1>Your orders</h1><table class='orders'><tr><th>Order</th><th>Placed</th><th>Items</th><th>Total</th>"
            f"<th>Status</th></tr>{rows}</table><nav class='pagination' aria-label='Order pages'>{pager}</nav>")
    return shell(state, "Orders", body)


def order_page(state: dict[str, Any], order: dict[str, Any], *, message: str = "", problem: str = "",
               status: int = 200) -> Response:
    lines = "".join(f"<tr><td>{esc(ln['name'])}<div class='muted'>{esc(options_text(ln))}</div></td><td>{ln['qty']}</td>"
                    f"<td>{money(ln['price'] * ln['qty'])}</td></tr>" for ln in order["lines"])
    reasons = "".join(f"<option>{esc(r)}</option>" for r in CANCEL_REASONS)
    cancel = ""
    if order["status"] == "Processing":
        cancel = (
            "<button class='danger block' id='cancel-order' data-dialog-open='#cancel-dialog'>Cancel order</button>"
            "<dialog id='cancel-dialog' aria-labelledby='cancel-title'>"
            f"<form method='post' action='{BASE}/orders/{order['number']}/cancel'>"
            f"<h2 id='cancel-title'>Cancel order {order['number']}?</h2><div class='field'>"
            "<label for='cancel-reason'>Reason</label>"
            f"<select id='cancel-reason' name='reason'><option value=''>Choose a reason</option>{reasons}</select></div>"
            "<div class='actions'><button type='button' class='secondary' data-dialog-close>Keep order</button>"
            "<button class='danger' id='confirm-cancel'>Cancel order</button></div></form></dialog>")
    extra = f"<p><b>Cancellation reason:</b> {esc(order['cancel_reason'])}</p>" if order["cancel_reason"] else ""
    pay = f"Saved card: {order['card']}" if order["payment"] == "card" else "Cash on delivery"
    body = (
        "<p class='breadcrumb'>"
        f"<a href='{BASE}/orders'>Your orders</a> › {order['number']}</p>{notice(message, markup=True)}{error(problem)}"
        f"<h1>Order <span id='order-number'>{order['number']}</span> <span class='status {order['status'].lower()}'>"
        f"{order['status']}</span></h1><p class='muted'>Placed on {order['date']}</p>"
        "<div class='layout'><section class='content'><table><tr><th>Item</th><th>Qty</th><th>Total</th>"
        f"</tr>{lines}</table>"
        f"<p><b>Ship to:</b> {esc(address_line(order['address']))}</p><p>"
        f"<b>Delivery:</b> {DELIVERY[order['delivery']][0]}</p>"
        f"<p><b>Payment:</b> {esc(pay)}</p>{extra}</section><aside class='sidebar wide card'>"
        f"<table class='totals'><tr><th>Subtotal</th><td>{money(order['subtotal'])}</td></tr>"
        + (f"<tr><th>Promo {order['promo']}</th><td>−{money(order['discount'])}</td></tr>" if order["promo"] else "")
        + f"<tr><th>Delivery</th><td>{money(order['shipping']) if order['shipping'] else 'Free'}</td></tr>"
        f"<tr class='grand'><th>Total</th><td>{money(order['total'])}</td></tr></table>"
        f"<form method='post' action='{BASE}/orders/{order['number']}/reorder'>"
        "<button id='buy-again' class='block'>Buy it again"
        f"</button></form>{cancel}</aside></div>")
    return shell(state, f"Order {order['number']}", body, status=status)
