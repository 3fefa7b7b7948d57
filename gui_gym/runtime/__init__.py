"""The plumbing every floor runs on, apart from the public face of ``gui_gym``: waiting without
fixed sleeps (`waiting`), the deadlines of blocking calls (`deadlines`), process trees
(`processes`), loopback ports (`loopback`), HTTP calls with a total deadline and a size cap
(`bounded_http`). Imports nothing else of ours."""
