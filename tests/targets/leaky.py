"""A program whose locals and output hold one secret of each kind dbg masks
(tests/test_secrets.py). None of them is real: made up for the test."""

PEM = ("-----BEGIN RSA PRIVATE KEY-----\n"
       "MIIEowIBAAKCAQEAv3Fq0mZ2Yk1hO9xTn4cQ8sLrJpW7eE6dUa5gHbK2iMlN0oPq\n"
       "-----END RSA PRIVATE KEY-----")


def login(user: str, password: str, token: str) -> str:
    return user + " logged in"


def connect() -> tuple[object, ...]:
    aws = "AKIA" + "Q3EXAMPLE7KEYID0"
    github = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    gitlab = "glpat-" + "x9Y8z7W6v5U4t3S2r1Q0"
    slack = "xoxb-" + "123456789012-abcdefABCDEF"
    google = "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
    stripe = "sk_live_" + "51Hx2Yz3Ab4Cd5Ef6Gh7Ij8Kl"
    jwt = ("eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiJhZ2VudCIsImV4cCI6MX0."
           + "c2lnbmF0dXJlLW5vdC1yZWFs")
    header = "Authorization: Bearer " + "tk3Qz9LmW2pXa7Rb"
    url = "postgres://app:" + "Pg5ecretW0rd" + "@db.internal:5432/shop"
    dsn = "Server=db;User Id=app;Password=" + "Dsn5ecret9;"
    key = PEM
    password = "hunter22"
    api_key = "k-7f3a9c1e5b"
    empty_token = ""
    no_secret = None
    count = 42
    greeting = "hello world"
    print("shapes:", aws, github, gitlab, slack, google, stripe, jwt, header, url, dsn)  # @printed
    print("logged in with password=" + password)  # @told
    print("key:", key)  # @keyed
    del key
    login("bob", password, github)  # @login
    return api_key, empty_token, no_secret, count, greeting


connect()
