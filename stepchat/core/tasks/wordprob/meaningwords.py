"""Capitalised words that carry meaning, so a change of one is never a rename of a name.

Two closed lists. Compass points, weekdays and months (with English abbreviations: "Sat",
"Feb"), seasons, planets and zodiac signs (given names too: Summer, Venus, Leo), months
of the Islamic and Hebrew calendars, Akan day names (Kofi, Ama), Spanish feasts that
name days, the states of the United States, and nationalities or languages, in the
languages whose word problems the cache serves most (English, German, Spanish, French),
written here; and the weekdays, months and
territories of every language CLDR describes, in full (`calendar_and_places.txt`, built by
scripts/build_meaning_words.py: "Sabtu" to "Senin", "France" to "Peru"). "North" to "East"
turns a distance, "Tuesday" to "Saturday" a count of weekdays, "French" to "Japanese" a sum
of European stamps: a name changes nothing the solution computes, these change the problem.
Lower-cased before lookup, so a sentence-start capital matches too. A person named April,
Anna or Jordan is then never renamed: the request goes to the model.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

_COMPASS = (
    "north south east west northeast northwest southeast southwest "
    "nord süd sud ost west norden süden osten westen norte sur este oeste est ouest"
)
_WEEKDAYS = (
    "monday tuesday wednesday thursday friday saturday sunday weekday weekdays weekend "
    "montag dienstag mittwoch donnerstag freitag samstag sonnabend sonntag "
    "lunes martes miércoles jueves viernes sábado domingo "
    "lundi mardi mercredi jeudi vendredi samedi dimanche "
    "mon tue tues wed thu thur thurs fri sat sun"
)
_MONTHS = (
    "january february march april may june july august september october november "
    "december januar februar märz juni juli oktober dezember enero febrero marzo abril "
    "mayo junio julio agosto septiembre setiembre octubre noviembre diciembre janvier "
    "février mars avril mai juin juillet août septembre octobre novembre décembre "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
)
_NATIONS = (
    "american british english french german spanish italian portuguese dutch swiss "
    "austrian belgian irish scottish welsh danish swedish norwegian finnish polish czech "
    "greek turkish russian ukrainian chinese japanese korean indian thai vietnamese "
    "mexican canadian brazilian argentinian australian african european asian arabic "
    "egyptian persian hebrew latin deutsch deutsche deutscher englisch französisch "
    "spanisch italienisch japanisch chinesisch europäisch español española inglés "
    "francés alemán italiano japonés chino europeo europea français française anglais "
    "allemand espagnol italien japonais chinois européen européenne"
)

_SEASONS = (
    "spring summer autumn fall winter frühling frühjahr sommer herbst primavera verano "
    "otoño invierno printemps été automne hiver"
)
_SKY = (
    "mercury venus earth mars jupiter saturn uranus neptune pluto moon sun "
    "merkur erde neptun mond sonne mercurio tierra marte júpiter saturno urano neptuno "
    "plutón luna sol mercure vénus terre saturne pluton lune soleil "
    "aries taurus gemini cancer leo virgo libra scorpio sagittarius capricorn aquarius "
    "pisces widder stier zwillinge krebs löwe jungfrau waage skorpion schütze steinbock "
    "wassermann fische tauro géminis cáncer escorpio sagitario capricornio acuario piscis "
    "bélier taureau gémeaux lion vierge balance scorpion sagittaire capricorne verseau "
    "poissons"
)

_OTHER_CALENDARS = (
    # Islamic months (English and Turkish), Hebrew months, Akan day names (a person's name
    # that says the weekday of birth), feasts that name Spanish days
    "muharram safar rabi rabia jumada jumaada rajab shaban shaaban ramadan ramadhan "
    "shawwal dhul qidah qadah hijjah muharrem safer rebiülevvel rebiülahir "
    "cemaziyelevvel cemaziyelahir recep şaban ramazan şevval zilkade zilhicce "
    "tishrei tishri cheshvan heshvan kislev tevet shevat adar nisan iyar sivan tammuz av "
    "elul kwasi kwesi akwasi kwadwo kojo kwabena ebo kwaku kweku yaw kofi kwame akosua "
    "adwoa abena akua yaa afua efua ama esi candelaria natividad asunción concepción "
    "epifanía pascua navidad"
)
_STATES = (
    "alabama alaska arizona arkansas california colorado connecticut delaware florida "
    "georgia hawaii idaho illinois indiana iowa kansas kentucky louisiana maine maryland "
    "massachusetts michigan minnesota mississippi missouri montana nebraska nevada ohio "
    "oklahoma oregon pennsylvania tennessee texas utah vermont virginia washington "
    "wisconsin wyoming carolina dakota"
)

MEANING_WORDS = frozenset(
    " ".join((_COMPASS, _WEEKDAYS, _MONTHS, _NATIONS, _SEASONS, _SKY, _OTHER_CALENDARS,
              _STATES)).split()
)


@cache
def _calendar_and_places() -> frozenset[str]:
    text = resources.files(__package__).joinpath("calendar_and_places.txt").read_text("utf-8")
    return frozenset(text.split())


def carries_meaning(word: str) -> bool:
    """Whether a capitalised word is one of the closed lists above (any case)."""
    folded = word.casefold()
    return folded in MEANING_WORDS or folded in _calendar_and_places()
