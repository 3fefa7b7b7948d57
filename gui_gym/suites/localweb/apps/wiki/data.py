"""The wiki's world: an encyclopedia of an invented region, drawn from the episode seed.

Five kinds of article (cities, rivers, mountains, islands, railways), each with an infobox,
prose sections, a table and links to its neighbours, plus a history of revisions by several
editors and talk-page discussions. Names are built from syllables, so no article is about a
real place; dates are relative to a fixed `TODAY`, never the machine's clock.
"""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

from gui_gym.suites.localweb.apps.wiki.markup import table_line
from gui_gym.suites.localweb.framework import seeded

TODAY = dt.date(2025, 6, 16)
SITE = "Meridian Wiki"
ME = "Robin Hale"
"""The signed-in editor: every edit the agent makes is theirs."""
EDITORS = ("Tamsin.K", "Oakridge", "Verity M", "Halvard", "Quillon", "Marisol P", "Brannock", "Ysolde")
VANDALS = ("203.0.113.45", "198.51.100.23", "192.0.2.178")
SECTIONS = ("Cities", "Rivers", "Mountains", "Islands", "Railways")
HELP_SECTION = "Help"
PAGES_PER_SECTION = 6

_HEADS = ("Val", "Os", "Bre", "Kar", "Tel", "Mar", "Dun", "Fen", "Hal", "Lor", "Cas", "Ver", "Ard",
          "Sel", "Tor", "Wyn", "Esk", "Gal", "Mor", "Ryn", "Ash", "Cor", "Dra", "Elm", "Thal", "Ul")
_MIDS = ("a", "e", "i", "o", "ro", "ve", "la", "ni", "", "")
_TAILS = ("mora", "vik", "dale", "stead", "holm", "ford", "wick", "mere", "garth", "bury", "ness",
          "thorpe", "vale", "mouth", "haven", "ring")
PROVINCES = ("Estrel", "Norrow", "Calvany", "Sundmark", "Oderra", "Wessing")
RANGES = ("Grey Teeth", "Harrow Fells", "Solace Range", "Iron Crowns")
SEAS = ("Amber Sea", "Gulf of Orrin", "Narrow Sound", "Pale Bight")
CLIMATES = ("mild and wet", "cool and windy", "warm and dry in summer", "continental, with cold winters")
DISTRICT_NAMES = ("Old Harbour", "Castle Hill", "Millbank", "Northgate", "Riverside", "St. Aldric", "Tanners Row",
                  "Westfield", "Brightwater", "Chapel End", "Saltmarsh", "Kingsmead")
GRADES = ("PD", "AD", "D", "TD", "ED1")
GAUGES = ("Standard (1,435 mm)", "Narrow (1,000 mm)", "Narrow (750 mm)")
OPERATORS = ("Meridian Railways", "Northline", "Coastal Rail Company", "Upland Heritage Trust")


def pretty_date(iso: str) -> str:
    d = dt.date.fromisoformat(iso[:10])
    return f"{d.day} {d:%B} {d.year}"


def slug(title: str) -> str:
    return title.replace(" ", "_")


def stamp(days_ago: int, minute_of_day: int) -> str:
    """A revision timestamp `days_ago` days before `TODAY`."""
    return f"{(TODAY - dt.timedelta(days=days_ago)).isoformat()} {minute_of_day // 60:02d}:{minute_of_day % 60:02d}"


def number(value: int) -> str:
    return f"{value:,}"


def initial_state(seed: int) -> dict[str, Any]:
    rng = seeded(seed, "wiki")
    names = _names(rng, 5 * PAGES_PER_SECTION + 16)
    cities = names[:6]
    builders = {"Cities": _city, "Rivers": _river, "Mountains": _mountain, "Islands": _island, "Railways": _railway}
    titles = {"Cities": cities, "Rivers": [f"River {n}" for n in names[6:12]],
              "Mountains": [f"Mount {n}" for n in names[12:18]], "Islands": [f"{n} Island" for n in names[18:24]],
              "Railways": []}
    for index in range(PAGES_PER_SECTION):
        a, b = cities[index], cities[(index + 1 + index % 3) % 6]
        titles["Railways"].append(f"{a} and {b} Railway")
    world = {"titles": titles, "extra": names[24:]}
    pages: dict[str, dict[str, Any]] = {}
    for section in SECTIONS:
        for index, title in enumerate(titles[section]):
            infobox, facts, sections = builders[section](rng, title, index, world)
            pages[slug(title)] = {"title": title, "section": section, "infobox": infobox, "facts": facts,
                                  "revisions": _history(rng, sections), "talk": []}
    for title, text in _help_pages():
        pages[slug(title)] = {"title": title, "section": HELP_SECTION, "infobox": [], "facts": {},
                              "revisions": [{"ts": stamp(700, 600), "user": "Halvard", "summary": "Created page",
                                             "text": text}], "talk": []}
    _number_revisions(pages)
    _discussions(rng, pages)
    featured = rng.choice([s for s, p in pages.items() if p["section"] != HELP_SECTION])
    return {"today": TODAY.isoformat(), "site": SITE, "me": ME, "pages": pages, "featured": featured,
            "watchlist": sorted(rng.sample([s for s, p in pages.items() if p["section"] != HELP_SECTION], 3)),
            "clock": 0}


def _names(rng: random.Random, count: int) -> list[str]:
    names: list[str] = []
    while len(names) < count:
        name = rng.choice(_HEADS) + rng.choice(_MIDS) + rng.choice(_TAILS)
        if name not in names and 5 <= len(name) <= 12:
            names.append(name)
    return names


def _table(header: tuple[str, ...], rows: list[tuple[Any, ...]]) -> str:
    return "\n".join(table_line([str(c) for c in row]) for row in [header, *rows])


def _city(rng, title, index, world):
    rivers = world["titles"]["Rivers"]
    pop, founded, elev = rng.randrange(18, 900) * 100 + rng.randrange(100), rng.randrange(900, 1750), rng.randrange(5, 900)
    province, river = rng.choice(PROVINCES), rivers[index]
    districts = rng.sample(DISTRICT_NAMES, 4)
    rows = [(d, number(rng.randrange(20, 400) * 50), f"{rng.randrange(8, 90) / 10:.1f}") for d in districts]
    infobox = [("Province", province), ("Population", number(pop)), ("Founded", str(founded)),
               ("Elevation", f"{number(elev)} m"), ("Mayor", f"{rng.choice(_HEADS)}a {rng.choice(_TAILS).title()}"),
               ("River", f"[[{river}]]")]
    sections = [
        ("", f"{title} is a city in the province of {province}, on the banks of the [[{river}]]. "
             f"With {number(pop)} inhabitants it is one of the principal towns of the region."),
        ("History", f"{title} was founded in {founded} as a "
                    f"{rng.choice(('river crossing', 'market town', 'fishing village', 'monastic settlement'))}. "
                    f"Its charter was confirmed by the provincial government in {founded + rng.randrange(40, 200)}.\n\n"
                    f"During the {rng.choice(('wool', 'salt', 'timber', 'grain'))} trade the merchants of {title} built "
                    "warehouses along the waterfront, several of which survive today."),
        ("Geography", f"The city lies at an elevation of {number(elev)} metres. The climate is {rng.choice(CLIMATES)}, "
                      "and the surrounding countryside is known for its "
                      f"{rng.choice(('orchards', 'vineyards', 'moorland', 'beech forests'))}."),
        ("Districts", "The municipality is divided into four districts.\n\n"
                      + _table(("District", "Population", "Area (km²)"), rows)),
        ("See also", f"* [[{river}]]\n* [[{world['titles']['Cities'][(index + 1) % 6]}]]"),
    ]
    return infobox, {"Population": pop, "Founded": founded, "Elevation": elev}, sections


def _river(rng, title, index, world):
    mountain, city = world["titles"]["Mountains"][index], world["titles"]["Cities"][index]
    length, basin, discharge = rng.randrange(40, 900), rng.randrange(300, 20000), rng.randrange(5, 800)
    sea = rng.choice(SEAS)
    tribs = [f"{n} Beck" if i % 2 else f"{n} Water" for i, n in enumerate(rng.sample(world["extra"], 4))]
    rows = [(t, rng.choice(("Left", "Right")), rng.randrange(8, max(9, length // 2))) for t in tribs]
    infobox = [("Source", f"[[{mountain}]]"), ("Mouth", sea), ("Length", f"{number(length)} km"),
               ("Basin area", f"{number(basin)} km²"), ("Discharge", f"{discharge} m³/s"), ("Cities", f"[[{city}]]")]
    sections = [
        ("", f"The {title} is a river of {rng.choice(PROVINCES)}. It rises on the slopes of [[{mountain}]] and flows "
             f"{number(length)} kilometres to the {sea}."),
        ("Course", f"Below its source the river passes through a narrow gorge before reaching the plain at [[{city}]]. "
                   f"Its average discharge at the mouth is {discharge} cubic metres per second.\n\n"
                   f"The lower course was {rng.choice(('straightened', 'dredged', 'embanked'))} in the nineteenth century "
                   "to protect the farmland."),
        ("History", f"Barges carried {rng.choice(('coal', 'timber', 'grain', 'stone'))} on the river "
                    "until the railway reached the valley. "
                    "The old towpath is now a popular walking trail."),
        ("Tributaries", _table(("Tributary", "Bank", "Length (km)"), rows)),
        ("See also", f"* [[{mountain}]]\n* [[{city}]]"),
    ]
    return infobox, {"Length": length, "Basin area": basin, "Discharge": discharge}, sections


def _mountain(rng, title, index, world):
    elev, prominence, ascent = rng.randrange(1200, 4800), rng.randrange(150, 1800), rng.randrange(1780, 1960)
    mountain_range = rng.choice(RANGES)
    routes = [(f"{rng.choice(('North', 'South', 'East', 'West'))} {kind}", rng.choice(GRADES), ascent + rng.randrange(0, 90))
              for kind in rng.sample(("Ridge", "Face", "Couloir", "Buttress", "Arête"), 3)]
    infobox = [("Range", mountain_range), ("Elevation", f"{number(elev)} m"), ("Prominence", f"{number(prominence)} m"),
               ("First ascent", str(ascent)), ("Easiest route", routes[0][0])]
    sections = [
        ("", f"{title} is a mountain in the {mountain_range}, rising to {number(elev)} metres. "
             f"It is the source of the [[{world['titles']['Rivers'][index]}]]."),
        ("Climbing", f"The summit was first reached in {ascent} by a party of surveyors. The {routes[0][0].lower()} "
                     "remains the usual way up, while the other routes are serious undertakings.\n\n"
                     "Mountain huts below the glacier are open from June to September."),
        ("Geology", f"The massif is made of {rng.choice(('granite', 'gneiss', 'limestone', 'basalt'))}, "
                    "shaped by glaciers during the last ice age."),
        ("Routes", _table(("Route", "Grade", "First climbed"), routes)),
        ("See also", f"* [[{world['titles']['Rivers'][index]}]]"),
    ]
    return infobox, {"Elevation": elev, "Prominence": prominence, "First ascent": ascent}, sections


def _island(rng, title, index, world):
    area, pop, high = rng.randrange(4, 900), rng.randrange(40, 60000), rng.randrange(12, 1400)
    sea = rng.choice(SEAS)
    towns = rng.sample(world["extra"], 3)
    rows = [(t, number(rng.randrange(30, 9000)), rng.choice(("Yes", "No"))) for t in towns]
    infobox = [("Location", sea), ("Area", f"{number(area)} km²"), ("Population", number(pop)),
               ("Highest point", f"{number(high)} m"), ("Main town", towns[0])]
    sections = [
        ("", f"{title} is an island in the {sea} with an area of {number(area)} square kilometres. "
             f"Its main town is {towns[0]}."),
        ("History", f"The island was settled by {rng.choice(('fishermen', 'monks', 'shepherds', 'traders'))} "
                    "in the early middle ages. "
                    f"A lighthouse was built on its western cape in {rng.randrange(1790, 1910)}.\n\n"
                    "Ferries to the mainland run several times a day in summer."),
        ("Nature", f"The cliffs are home to large colonies of {rng.choice(('puffins', 'gannets', 'kittiwakes', 'razorbills'))}, "
                   "and much of the interior is protected heathland."),
        ("Settlements", _table(("Settlement", "Population", "Harbour"), rows)),
        ("See also", f"* [[{world['titles']['Islands'][(index + 1) % 6]}]]"),
    ]
    return infobox, {"Area": area, "Population": pop, "Highest point": high}, sections


def _railway(rng, title, index, world):
    start, end = title.removesuffix(" Railway").split(" and ")
    length, opened = rng.randrange(20, 340), rng.randrange(1838, 1925)
    mids = rng.sample(world["extra"], 2)
    stations = [(start, 0, opened), (mids[0], length // 3, opened + rng.randrange(0, 6)),
                (mids[1], 2 * length // 3, opened + rng.randrange(0, 9)), (end, length, opened)]
    infobox = [("Termini", f"[[{start}]], [[{end}]]"), ("Length", f"{number(length)} km"), ("Opened", str(opened)),
               ("Gauge", rng.choice(GAUGES)), ("Operator", rng.choice(OPERATORS))]
    sections = [
        ("", f"The {title} is a line linking [[{start}]] and [[{end}]]. "
         f"It opened in {opened} and is {number(length)} kilometres long."),
        ("History", f"Construction began after an act of the provincial assembly. "
         f"Engineers had to bridge the narrow valley near {mids[0]}, "
                    "which delayed the opening by two years.\n\n"
                    f"The line was {rng.choice(('electrified', 'doubled', 'modernised'))} in the 1960s."),
        ("Services", f"Regional trains run every {rng.choice((30, 60, 120))} minutes, "
                     "with several extra services on market days."),
        ("Stations", _table(("Station", "Distance (km)", "Opened"), stations)),
        ("See also", f"* [[{start}]]\n* [[{end}]]"),
    ]
    return infobox, {"Length": length, "Opened": opened}, sections


def compose(sections: list[tuple[str, str]]) -> str:
    """Article text from (heading, body) pairs; the lead has no heading."""
    return "\n\n".join(body if not heading else f"== {heading} ==\n{body}" for heading, body in sections)


_COPYEDITS = (("principal", "main"), ("several", "a few"), ("popular", "well-known"), ("usual", "normal"),
              ("protected", "preserved"), ("large", "big"), ("narrow", "small"), ("serious", "hard"))
"""(final wording, earlier wording): what later copy edits changed."""


def _history(rng: random.Random, sections: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """Revisions that build the article up section by section, then copy edits that each
    change one word to its final wording."""
    final = compose(sections)
    candidates = [pair for pair in _COPYEDITS if f" {pair[0]} " in final]
    fixes = rng.sample(candidates, min(len(candidates), rng.randint(1, 2)))

    def before(text: str, fixed: int) -> str:
        for new, old in fixes[fixed:]:
            text = text.replace(f" {new} ", f" {old} ", 1)
        return text
    count = rng.randint(2, 4)
    age = rng.randrange(300, 1500)
    revisions = []
    for step in range(count):
        upto = len(sections) if step == count - 1 else max(1, len(sections) * (step + 1) // count)
        summary = "Created page" if step == 0 else rng.choice(("Expanded", "Added sections", "More detail"))
        revisions.append({"ts": stamp(age, rng.randrange(480, 1320)), "user": rng.choice(EDITORS), "summary": summary,
                          "text": before(compose(sections[:upto]), 0)})
        if step < count - 1:
            age = rng.randrange(20, max(21, age - 10))
    for fixed in range(1, len(fixes) + 1):
        age = rng.randrange(1, max(2, age))
        revisions.append({"ts": stamp(age, rng.randrange(480, 1320)), "user": rng.choice(EDITORS),
                          "summary": rng.choice(("Copyedit", "Minor wording", "Tone")), "text": before(final, fixed)})
    return revisions


def _number_revisions(pages: dict[str, dict[str, Any]]) -> None:
    """Global revision ids in time order, like a real wiki's."""
    everything = sorted((rev["ts"], s, i) for s, p in pages.items() for i, rev in enumerate(p["revisions"]))
    for number_, (_, s, i) in enumerate(everything, start=4100):
        pages[s]["revisions"][i]["id"] = number_


def _discussions(rng: random.Random, pages: dict[str, dict[str, Any]]) -> None:
    subjects = {
        "Source for the figures?": "Where do the numbers in the infobox come from? "
                                   "I could not find them in the usual references.",
        "Merge with the regional article": "Should this be merged into the article about the province? It is rather short.",
        "Photo request": "Does anyone have a photograph we could use for the infobox?",
        "Old name": "Older maps use a different spelling. Worth a mention in the lead?",
        "Table formatting": "The table would read better with the rows sorted by size.",
        "More on the history": "The history section stops in the nineteenth century. Anything more recent?",
    }
    for page in pages.values():
        if page["section"] == HELP_SECTION or rng.random() < 0.3:
            continue
        for index, subject in enumerate(rng.sample(sorted(subjects), rng.randint(1, 2)), start=1):
            people = rng.sample(EDITORS, 2)
            start = rng.randrange(30, 400)
            page["talk"].append({"id": index, "subject": subject, "resolved": rng.random() < 0.3, "comments": [
                {"user": people[0], "ts": stamp(start, 600), "text": subjects[subject]},
                {"user": people[1], "ts": stamp(start - rng.randrange(1, 20), 720),
                 "text": rng.choice(("Agreed, let's look into it.", "I will check the archive next week.",
                                     "The provincial yearbook should have it."))}]})


def _help_pages() -> list[tuple[str, str]]:
    return [
        ("About Meridian Wiki", "Meridian Wiki is a collaborative encyclopedia of the Meridian region. "
         "Anyone signed in may edit.\n\n== Sections ==\nArticles are grouped into sections: "
         + ", ".join(SECTIONS) + ". Each section page lists its articles."),
        ("Editing help", "Pages are written in a small markup.\n\n== Headings ==\nA line like == History == starts a section.\n\n"
         "== Links ==\nWrite [[Page title]] to link to another page, or [[Page title|shown text]].\n\n"
         "== Lists and tables ==\nStart a line with * for a bullet. Table rows are lines like | a | b |; "
         "the first row is the header."),
    ]
