"""The company that mail and calendar share: the user, the names their colleagues and
contacts are drawn from, the partner companies and the project code names. Both apps draw
their people from here, so the calendar's attendees are the mail's contacts."""

from __future__ import annotations

ME = {"name": "Sam Rivera", "email": "sam.rivera@northwind.test"}
HOME_COMPANY = "Northwind"

FIRST_NAMES = (
    "Aisha", "Bruno", "Carmen", "Dmitri", "Elena", "Farid", "Grace", "Hiro", "Ingrid", "Jamal",
    "Keiko", "Liam", "Maya", "Nikolai", "Olivia", "Pedro", "Quinn", "Rosa", "Stefan", "Tara",
    "Umar", "Vera", "Wes", "Ximena", "Yusuf", "Zoe", "Anton", "Bianca", "Colin", "Daria",
    "Emil", "Fiona", "Gustav", "Hana", "Ivan", "Julia", "Kofi", "Lena", "Marco", "Nadia",
)
LAST_NAMES = (
    "Abbott", "Brennan", "Castillo", "Dubois", "Eriksen", "Fischer", "Gallo", "Haddad", "Ito",
    "Jensen", "Kowalski", "Lindqvist", "Moreau", "Novak", "Okafor", "Petrov", "Quintero",
    "Rossi", "Sato", "Tanaka", "Ueda", "Varga", "Weber", "Yilmaz", "Zhou", "Mendes", "Baker",
    "Costa", "Dalton", "Ferreira", "Hughes", "Klein", "Larsen", "Murphy", "Nilsen", "Ortiz",
)
COMPANIES = ("Brightpath", "Cobalt Labs", "Evergreen Foods", "Harbor Logistics", "Lumen Analytics",
             "Pinecrest Bank", "Quarry Media", "Summit Health")
PROJECTS = ("Falcon", "Orion", "Juniper", "Cascade", "Meridian", "Sequoia", "Tundra", "Beacon")
