"""Random user data for task parameters: names, phone numbers, sentences, file names.

The distributions follow AndroidWorld's generators (a given and a family name; "+1" and ten
digits, so that the SMS app adds no country code; a file name changed by a date prefix, a
random suffix or a word like "backup"; up to 20 noise files that are variants of the target's
neighbours), drawn from gui-gym's own word lists with the episode's `random.Random`, so the
same seed gives the same episode. The values are not AndroidWorld's for the same seed.
"""

from __future__ import annotations

import datetime
import os
import random
import string

GIVEN_NAMES = (
    "Ada", "Aiko", "Amara", "Anders", "Beatriz", "Bilal", "Carmen", "Chidi", "Dario", "Dmitri", "Elena", "Emeka",
    "Farah", "Felix", "Grete", "Hamid", "Hana", "Ines", "Ivo", "Jonas", "Kalani", "Kenji", "Laila", "Lucia",
    "Malik", "Mateo", "Mei", "Nadia", "Niko", "Olga", "Omar", "Priya", "Quentin", "Rafael", "Rosa", "Sanjay",
    "Selin", "Tariq", "Thea", "Uma", "Viktor", "Wen", "Ximena", "Yusuf", "Zara")
FAMILY_NAMES = (
    "Abara", "Bergstrom", "Castillo", "Dubois", "Eriksen", "Fontaine", "Gallagher", "Haddad", "Ivanova", "Jansen",
    "Kowalski", "Lindqvist", "Moreau", "Nakamura", "Okafor", "Petrov", "Quispe", "Rossi", "Sato", "Takahashi",
    "Umarov", "Varga", "Weber", "Xu", "Yilmaz", "Zhou", "Alvarez", "Brennan", "Costa", "Demir")
SENTENCES = (
    "Remember to bring the spare keys to the office.",
    "The plumber is coming on Friday between nine and noon.",
    "Pick up the dry cleaning before the shop closes at six.",
    "Book a table for four at the Lebanese place near the station.",
    "Call the bank about the new card that never arrived.",
    "The library books are due back next Tuesday.",
    "A watched pot never boils.",
    "Every cloud has a silver lining.",
    "Actions speak louder than words.",
    "Fortune favours the prepared mind.",
    "The early train is faster than the late bus.",
    "Still waters run deep.",
)
ADDRESSES = (
    "42 Larch Lane, Bozeman, MT, 59715", "17 Quarry Rd, Bangor, ME, 04401", "903 Harbor Ave, Tacoma, WA, 98402",
    "58 Old Mill St, Keene, NH, 03431", "2210 Pecan Blvd, Waco, TX, 76701", "7 Birchwood Ct, Ames, IA, 50010",
    "615 Canal St, Dayton, OH, 45402", "31 Juniper Way, Flagstaff, AZ, 86001")
ADJECTIVES = ("amber", "bold", "calm", "dusty", "eager", "fuzzy", "gentle", "hollow", "icy", "jolly", "lucky",
              "mellow", "nimble", "quiet", "rapid", "sunny", "tidy", "vivid", "witty", "young")
NOUNS = ("anchor", "badger", "cactus", "dolphin", "ember", "falcon", "garden", "harbor", "island", "jacket",
         "kettle", "lantern", "meadow", "nebula", "orchard", "pepper", "quill", "river", "summit", "tulip")
NAME_CHANGES = ("backup", "copy", "final", "edited")
DIRECTORIES = {
    "Alarms": ("sunrise_chime.mp3", "gentle_wake.mp3", "loud_bell.mp3", "school_run.mp3", "gym_call.mp3",
               "late_shift.mp3", "nap_end.mp3", "weekday_alarm.mp3"),
    "Audiobooks": ("space_saga_ch1.mp3", "roman_history.mp3", "cookbook_audio.mp3", "poetry_hour.mp3",
                   "detective_tale.mp3", "garden_guide.mp3", "ocean_myths.mp3", "french_lessons.mp3"),
    "DCIM": ("lake_weekend.jpg", "graduation_day.jpg", "first_snow.jpg", "harbor_sunset.jpg", "market_trip.jpg",
             "new_puppy.jpg", "concert_crowd.jpg", "bike_ride.jpg"),
    "Documents": ("tax_return.pdf", "lease_agreement.pdf", "trip_plan.pdf", "thesis_draft.pdf",
                  "insurance_policy.pdf", "warranty_card.pdf", "meeting_agenda.pdf", "job_offer.pdf"),
    "Download": ("installer_v2.exe", "brochure.pdf", "dataset.zip", "wallpaper.png", "trailer_clip.mp4",
                 "driver_update.exe", "reader_app.apk", "photos_backup.zip"),
    "Movies": ("road_movie.mp4", "space_drama.mp4", "nature_film.mp4", "heist_thriller.mp4", "cartoon_short.mp4",
               "war_epic.mp4", "indie_comedy.mp4", "ghost_story.mp4"),
    "Music": ("blues_night.mp3", "piano_solo.mp3", "summer_anthem.mp3", "drum_loop.mp3", "lullaby.mp3",
              "string_quartet.mp3", "synth_wave.mp3", "choir_piece.mp3"),
    "Notifications": ("soft_ping.mp3", "door_knock.mp3", "bubble_pop.mp3", "glass_tap.mp3", "bird_call.mp3",
                      "short_buzz.mp3", "chime_up.mp3", "pulse_alert.mp3"),
    "Pictures": ("portrait.jpg", "city_lights.jpg", "mountain_view.jpg", "old_bridge.jpg", "family_picnic.jpg",
                 "cat_nap.jpg", "autumn_leaves.jpg", "breakfast.jpg"),
    "Podcasts": ("science_weekly.mp3", "startup_stories.mp3", "history_hour.mp3", "true_crime_ep4.mp3",
                 "film_review.mp3", "language_corner.mp3", "sports_talk.mp3", "travel_diaries.mp3"),
    "Recordings": ("team_standup.mp3", "voice_memo.mp3", "guitar_idea.mp3", "lecture_notes.mp3",
                   "phone_interview.mp3", "kids_singing.mp3", "reading_aloud.mp3", "grocery_reminder.mp3"),
    "Ringtones": ("classic_ring.mp3", "marimba_tone.mp3", "retro_phone.mp3", "jazz_riff.mp3", "harp_ring.mp3",
                  "beep_beep.mp3", "rain_drops.mp3", "waltz_tone.mp3"),
}
"""Shared-storage folders of the emulator and plausible files in each (noise candidates)."""


def random_string(rng: random.Random, length: int) -> str:
    """Letters and digits."""
    return "".join(rng.choices(string.ascii_letters + string.digits, k=length))


def random_name(rng: random.Random, excluding: str = "") -> str:
    """"Given Family", avoiding the words of `excluding`."""
    excluded = set(excluding.replace(",", " ").split())
    given = rng.choice([n for n in GIVEN_NAMES if n not in excluded])
    family = rng.choice([n for n in FAMILY_NAMES if n not in excluded])
    return f"{given} {family}"


def random_phone_number(rng: random.Random) -> str:
    """"+1" and ten digits."""
    return "+1" + "".join(rng.choice(string.digits) for _ in range(10))


def random_address(rng: random.Random) -> str:
    return rng.choice(ADDRESSES)


def random_sentence(rng: random.Random) -> str:
    return rng.choice(SENTENCES)


def _random_date_text(rng: random.Random) -> str:
    start, end = datetime.date(2023, 1, 1), datetime.date(2023, 10, 14)
    return (start + datetime.timedelta(days=rng.randint(0, (end - start).days))).strftime("%Y_%m_%d")


def modified_file_name(rng: random.Random, base: str) -> str:
    """`base` with a date, four random characters or a word like "copy" before or after its
    stem (the extension stays last)."""
    kind = rng.choice(("date", "random", "word"))
    as_prefix = rng.choice((True, False))
    stem, ext = os.path.splitext(base)
    change = {"date": _random_date_text, "random": lambda r: random_string(r, 4),
              "word": lambda r: r.choice(NAME_CHANGES)}[kind](rng)
    return f"{change}_{stem}{ext}" if as_prefix else f"{stem}_{change}{ext}"


def random_file_name(rng: random.Random) -> str:
    """An adjective_noun stem, modified; no extension."""
    return modified_file_name(rng, f"{rng.choice(ADJECTIVES)}_{rng.choice(NOUNS)}")


def noise_file_names(rng: random.Random, base: str, variants: tuple[str, ...] | list[str], n: int = 20) -> list[str]:
    """Between 1 and `n` distinct names, most of them variants of `variants`, some of `base`;
    a name without an extension borrows one from a variant."""
    if not variants:
        raise ValueError("noise files need at least one variant name")
    count = rng.randint(1, n)
    names: list[str] = []
    while len(names) < count:
        source = rng.choice(variants) if rng.random() <= 0.85 else base
        name = modified_file_name(rng, source)
        if "." not in name:
            name += os.path.splitext(rng.choice(variants))[1]
        if name not in names:
            names.append(name)
    return names


VIDEO_PREFIXES = ("clip", "take", "shot", "reel", "vlog", "montage", "sequence")
VIDEO_SUFFIXES = ("", "HD", "4K", "raw", "final")


def video_file_name(rng: random.Random) -> str:
    """A camera-style video name (``reel_42_HD.mp4``), modified."""
    return modified_file_name(rng, f"{rng.choice(VIDEO_PREFIXES)}_{rng.randint(1, 99)}_{rng.choice(VIDEO_SUFFIXES)}.mp4")
