"""Generators of a suite's bundled data that play another suite's envs: the MMBench-GUI sample
(`mmbench`) and the local Online-Mind2Web task file (`mind2web_local`), both built from LocalWeb.
Run by hand and never imported by the suite whose data they write, they sit here, above the
registered ids they make, rather than in the suite's folder below them."""
