"""What kind of place a name is, where that can be shown: a country, a region, a city, or
unknown.

"from Lisbon" says where someone is from, not that Lisbon is a country; "from Portugal" is
not a city; "from Google", "works in Sales" and "born in Winter" name no place at all. So a
place read by a cue (`from`, `in`, `lives in`, `moved to`) or stated for a place key fills a
country key only when it is a country named here, a city-like key only when it is a city
of the GeoNames list (`cities.txt`, built by scripts/build_cities.py) and neither a country
nor a region named here (a state, a nation of the UK, a continent, a well-known region), and
any other place key (location, origin, birthplace, ...) only when it is one of those. A name
none of the lists holds states no place, unless the prompt says it is a city (`the city of
X`, `X (city)`).
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

_COUNTRY_NAMES = (
    "Afghanistan, Albania, Algeria, Andorra, Angola, Antigua and Barbuda, Argentina, Armenia, "
    "Australia, Austria, Azerbaijan, Bahamas, Bahrain, Bangladesh, Barbados, Belarus, "
    "Belgium, Belize, Benin, Bhutan, Bolivia, Bosnia and Herzegovina, Bosnia, Botswana, "
    "Brazil, Brunei, Bulgaria, Burkina Faso, Burundi, Cabo Verde, Cape Verde, Cambodia, "
    "Cameroon, Canada, Central African Republic, Chad, Chile, China, Colombia, Comoros, "
    "Congo, Democratic Republic of the Congo, Costa Rica, Croatia, Cuba, Cyprus, Czechia, "
    "Czech Republic, Denmark, Djibouti, Dominica, Dominican Republic, Ecuador, Egypt, "
    "El Salvador, Equatorial Guinea, Eritrea, Estonia, Eswatini, Swaziland, Ethiopia, Fiji, "
    "Finland, France, Gabon, Gambia, Georgia, Germany, Ghana, Greece, Grenada, Guatemala, "
    "Guinea, Guinea-Bissau, Guyana, Haiti, Honduras, Hungary, Iceland, India, Indonesia, "
    "Iran, Iraq, Ireland, Israel, Italy, Ivory Coast, Côte d'Ivoire, Jamaica, Japan, Jordan, "
    "Kazakhstan, Kenya, Kiribati, Korea, South Korea, North Korea, Kosovo, Kuwait, "
    "Kyrgyzstan, Laos, Latvia, Lebanon, Lesotho, Liberia, Libya, Liechtenstein, Lithuania, "
    "Luxembourg, Madagascar, Malawi, Malaysia, Maldives, Mali, Malta, Marshall Islands, "
    "Mauritania, Mauritius, Mexico, Micronesia, Moldova, Monaco, Mongolia, Montenegro, "
    "Morocco, Mozambique, Myanmar, Burma, Namibia, Nauru, Nepal, Netherlands, Holland, "
    "New Zealand, Nicaragua, Niger, Nigeria, North Macedonia, Macedonia, Norway, Oman, "
    "Pakistan, Palau, Palestine, Panama, Papua New Guinea, Paraguay, Peru, Philippines, "
    "Poland, Portugal, Qatar, Romania, Russia, Rwanda, Saint Kitts and Nevis, Saint Lucia, "
    "Saint Vincent and the Grenadines, Samoa, San Marino, Sao Tome and Principe, "
    "Saudi Arabia, Senegal, Serbia, Seychelles, Sierra Leone, Singapore, Slovakia, Slovenia, "
    "Solomon Islands, Somalia, South Africa, South Sudan, Spain, Sri Lanka, Sudan, "
    "Suriname, Sweden, Switzerland, Syria, Taiwan, Tajikistan, Tanzania, Thailand, "
    "Timor-Leste, East Timor, Togo, Tonga, Trinidad and Tobago, Tunisia, Turkey, Türkiye, "
    "Turkmenistan, Tuvalu, Uganda, Ukraine, United Arab Emirates, UAE, United Kingdom, UK, "
    "Great Britain, Britain, United States, USA, US, America, Uruguay, Uzbekistan, Vanuatu, "
    "Vatican City, Vatican, Venezuela, Vietnam, Viet Nam, Yemen, Zambia, Zimbabwe, "
    "Hong Kong, Macau, Puerto Rico, Greenland"
)
_REGION_NAMES = (
    # the nations of the UK, continents and parts of the world
    "England, Scotland, Wales, Northern Ireland, Europe, Asia, Africa, North America, "
    "South America, Latin America, Oceania, Antarctica, Scandinavia, the Balkans, Balkans, "
    "the Middle East, Middle East, the Caribbean, Caribbean, Siberia, Patagonia, "
    # states of the US
    "Alabama, Alaska, Arizona, Arkansas, California, Colorado, Connecticut, Delaware, "
    "Florida, Hawaii, Idaho, Illinois, Indiana, Iowa, Kansas, Kentucky, Louisiana, Maine, "
    "Maryland, Massachusetts, Michigan, Minnesota, Mississippi, Missouri, Montana, Nebraska, "
    "Nevada, New Hampshire, New Jersey, New Mexico, North Carolina, North Dakota, Ohio, "
    "Oklahoma, Oregon, Pennsylvania, Rhode Island, South Carolina, South Dakota, Tennessee, "
    "Texas, Utah, Vermont, Virginia, West Virginia, Wisconsin, Wyoming, Georgia, Washington, "
    "New York, "
    # provinces and states of Canada, Australia, India; regions of Europe
    "Ontario, Quebec, British Columbia, Alberta, Manitoba, Saskatchewan, Nova Scotia, "
    "New Brunswick, Newfoundland, Queensland, New South Wales, Victoria, Tasmania, "
    "Western Australia, South Australia, Goa, Kerala, Punjab, Bengal, Kashmir, Rajasthan, "
    "Gujarat, Maharashtra, Tamil Nadu, Karnataka, Bavaria, Saxony, Catalonia, Andalusia, "
    "Galicia, Basque Country, Tuscany, Sicily, Sardinia, Lombardy, Provence, Brittany, "
    "Normandy, Corsica, Crete, Flanders, Wallonia, Lapland, Bali, Java, Sumatra, Borneo"
)


def _names(text: str) -> frozenset[str]:
    return frozenset(n.strip().lower() for n in text.split(","))


COUNTRIES = _names(_COUNTRY_NAMES)
REGIONS = _names(_REGION_NAMES)


@lru_cache(maxsize=1)
def _cities() -> frozenset[str]:
    text = resources.files("stepchat.core.tasks").joinpath("cities.txt").read_text("utf-8")
    return frozenset(line.casefold() for line in text.splitlines()
                     if line and not line.startswith("#"))


def is_city(name: str) -> bool:
    """A city of the GeoNames list that is neither a country nor a region named here."""
    return place_kind(name) == "city"


def place_kind(name: str) -> str:
    """`country`, `region`, `both` (Georgia is a country and a state), `city`, or `unknown`
    (nothing here says it is a place)."""
    low = name.strip().lower()
    if low.startswith("the "):
        low = low[4:]
    region = low in REGIONS or f"the {low}" in REGIONS
    if low in COUNTRIES:
        return "both" if region else "country"
    if region:
        return "region"
    return "city" if name.strip().casefold() in _cities() else "unknown"


_CITY_LIKE = frozenset({"CITY", "HOMETOWN"})
_PLACE_CLASSES = frozenset({"CITY", "LOCATION", "HOMETOWN", "RESIDENCE", "HQ", "ORIGIN",
                            "COUNTRY", "BIRTHPLACE", "DESTINATION", "WORKPLACE", "SITE",
                            "CITY_KIND"})
_NOT_FOR = {"country": _CITY_LIKE, "region": _CITY_LIKE | {"COUNTRY"},
            "both": _CITY_LIKE | {"COUNTRY"}, "city": {"COUNTRY"}, "unknown": _PLACE_CLASSES}


def of_kind(name: str, groups: tuple[frozenset[str], ...], *,
            said: str | None = None) -> tuple[frozenset[str], ...]:
    """The kinds of key a place read by a cue may fill, given what kind of place it is
    (`said` when the prompt says so: `the city of X`): `from Portugal` never fills a city,
    `from Lisbon` never a country, `from Google` nothing."""
    banned = _NOT_FOR[said or place_kind(name)]
    kept = tuple(frozenset(g - banned) for g in groups)
    return tuple(g for g in kept if g)


def place_fits(name: str, classes: frozenset[str]) -> bool:
    """A value stated for a key by name (`city: Lisbon`) fits the kind of place the key is."""
    if not classes & _PLACE_CLASSES:
        return True
    # `city: New York`: the key says which of a state and a city of one name is meant
    said = "city" if classes & _CITY_LIKE and name.strip().casefold() in _cities() else None
    return bool(of_kind(name, (classes & _PLACE_CLASSES,), said=said))


_NOT_NAMED = {"CITY_KIND": ("country", "region", "both"), "COUNTRY": ("city", "region")}


def names_its_kind(name: str, classes: frozenset[str]) -> bool:
    """A key whose name says what kind of place it holds takes no place of another kind:
    `birth_city` or `to_city` no country (`heading to Portugal`), `country` no city. A
    cue's classes do not say it (`born in` fills a birthplace, a city or a country)."""
    kind = place_kind(name)
    return not any(kind in _NOT_NAMED[cls] for cls in classes & _NOT_NAMED.keys())
