"""The 25 question-answering tasks of AndroidWorld: calendar (9), Tasks (6), OpenTracks (6)
and Joplin (4). Questions, items, exclusion conditions and answers are AndroidWorld's; the
parameter values are gui-gym's own, in the same forms and ranges (dates in October 2023
around "today", the 15th; times written "4pm", "3:15pm" or "21:45").
"""

from __future__ import annotations

from gui_gym.suites.android.tasks.information_fields import Condition as C
from gui_gym.suites.android.tasks.information import Expect, InformationRetrievalTask, Spec

TITLES_LIST = " Answer with the titles only. If there are multiples titles, format your answer in a comma separated list."
OCT = tuple(f"October {d} 2023" for d in range(15, 30))
NEXT_WEEK = tuple(f"October {d} 2023" for d in range(16, 23))
THIS_WEEK = tuple(f"October {d} 2023" for d in range(9, 16))
TIMES = ("11:00am", "1:30pm", "9:45am", "21:45", "10:00am", "3:15pm", "12pm", "6:30am", "8:00pm", "12am", "5:20pm",
         "23:59", "7:45am", "4pm", "10:30am", "16:15", "2:45am", "9:15pm", "11:30am", "20:00")
LATER_TODAY = ("3:55pm", "21:40", "5pm", "17:30", "16:00", "18:30", "18:45", "7pm", "7:15pm", "8pm", "8:10pm", "5:20pm",
               "23:59", "4:00pm", "16:15", "9:15pm", "20:40", "22:35")
"""Times after 15:34, the device's time at the start of a task."""
BEFORE_8PM = ("11:00am", "1:30pm", "9:45am", "10:00am", "3:15pm", "12pm", "6:30am", "5:20pm", "7:45am", "4pm",
              "10:30am", "16:15", "11:30am")
DURATIONS = ("30 m", "60 minutes", "45min", "1 h", "2 hours", "15 minutes", "1.5 hours", "90 min", "20 min", "3 h",
             "25 minutes", "10 min", "50 min", "2.5 hours", "75 minutes", "5 minutes")
EVENT_TITLES = ("Design Critique", "Hackathon Kickoff", "Nora's Farewell", "Pub Quiz", "Feature Walkthrough",
                "Team Picnic", "Lunch with the CTO", "Half-year Review", "Standup", "Dentist Visit", "Surprise Party",
                "Code Kata", "Investor Update", "Brand Workshop", "Film Club", "Supper with Neighbours", "Jazz Gig",
                "Chess Night", "Anniversary Dinner", "Cabin Weekend", "Cousins' Gathering", "Beach Cleanup",
                "Football Match")
PEOPLE = ("Beatrix", "Conrad", "Delphine", "Emil", "Fiona", "Gustav", "Helga", "Ingmar", "Josefine", "Kasimir",
          "Leonie", "Magnus", "Nadine", "Oskar", "Philippa", "Rupert")
"""People to meet (none of them in the filler events' titles)."""
LOCATIONS = ("Room 4B", "Burger Barn", "12 Market Square Leeds", "Riverside Park", "The Old Library", "Studio 7",
             "Harbour Cafe", "Town Hall", "Gym Annex", "Rooftop Terrace", "Conference Suite C", "Baker Street Deli",
             "Community Centre", "Lakeside Pavilion", "Main Office Lobby")
EXCLUSIVE_TITLES = ("Sales Pitch", "Client Call", "Onboarding Session", "Project Launch", "Board Review",
                    "Supplier Meeting", "Tech Talk", "Team Retro", "Budget Review", "Hiring Panel")
EVENING_TITLES = ("Yoga Class", "Dinner with Friends", "Happy Hour", "Evening Run", "Book Club", "Choir Practice",
                  "Cooking Class", "Climbing Session", "Language Exchange", "Movie Screening")

TASK_TITLES = ("Draft Grant Proposal", "Review Pull Requests", "Book Team Offsite", "Submit Timesheet",
               "Update Risk Register", "Prepare Board Deck", "Renew Software Licences", "Plan Hackathon",
               "Archive Old Tickets", "Write Release Notes", "Audit Access Rights", "Migrate Build Server",
               "Interview Candidates", "Refresh Style Guide", "Order Office Supplies", "Schedule Training",
               "Clean Up Backlog", "Translate Help Pages", "Test Backup Restore", "Survey Customers",
               "Rotate API Keys", "Fix Flaky Tests", "Design Logo Variants", "Measure Page Speed", "Tidy Shared Drive")
TASK_NOTES = ("This one matters.", "Needs doing soon.", "Check with the team first.", "Double-check the numbers.",
              "Ask for a review afterwards.", "Blocked until Monday.", "Keep it short.", "Use last year's template.",
              "Copy the manager in.", "Low effort, high value.", "Finish before lunch.", "Attach the spreadsheet.")
PRIORITY_TITLES = ("Sign Vendor Contract", "Close Quarter Books", "Approve Final Budget", "Ship Hotfix",
                   "Present Roadmap", "Submit Audit Report", "Confirm Venue", "Finalise Hiring Plan", "Send Invoices",
                   "Publish Security Notice")
DUE_TIMES = ("5:00pm", "12:00pm", "8:00am", "11:59pm", "2:00pm", "9:00am", "3:30pm", "10:00am", "4:45pm", "7:00pm")

SPORTS = ("running", "cycling", "swimming", "hiking", "mountain biking", "kayaking", "skiing", "snow boarding",
          "skate boarding", "climbing", "inline skating", "sailing")
"""Categories of the task's activities (the filler activities use OpenTracks' own, such as biking)."""
MINUTES = ("15", "30", "45", "60", "90", "120", "40", "50", "75", "80", "20", "105", "135", "150", "165", "180", "210",
           "240", "270")
METERS = ("100", "300", "500", "800", "1000", "1200", "1500", "2000", "2500", "3000", "3500", "4000", "4500", "5000",
          "6000", "7000", "8000", "9000", "10000", "12000")
START_TIMES = ("8:00am", "10:30am", "5:00pm", "6:30am", "9:45am", "2:15pm", "7:00am", "11:00am", "4:00pm", "1:30pm",
               "5:45pm", "6:15am", "7:30am", "3:45pm", "10:15am", "2:45pm", "8:45am", "9:15am", "12:00pm", "5:30pm")
CLIMB = ("50", "100", "250", "150", "75", "300", "200", "400", "350", "450", "550", "600", "800", "700", "900", "1000")
ACTIVITY_NAMES = ("Heavy legs today", "Working on endurance", "Easy effort", "Loop around the reservoir",
                  "New personal best", "Windy but fun", "Rained the whole time", "Quick session before work",
                  "Long weekend outing", "Testing new gear", "With the club", "Recovery day", "Sunset session",
                  "Pushed the pace", "Exploring a new route")
ACTIVITY_DESCRIPTIONS = ("Great company and lots of laughs.", "Felt strong from start to finish.",
                         "Took it slow and enjoyed the views.", "Met some friends on the way.",
                         "Hard going in the second half.", "Perfect weather for it.", "A calm and steady effort.",
                         "Stopped for coffee halfway.", "Tried a new technique.", "The best outing this month.")
PAST_DAYS = tuple(f"October {d} 2023" for d in range(13, 0, -1)) + tuple(f"September {d} 2023" for d in range(30, 23, -1))

RECIPE_TITLES = ("Banana Bread", "Pumpkin Soup", "Chicken Pie", "Veggie Lasagne", "Fish Tacos", "Apple Crumble",
                 "Mushroom Risotto", "Berry Muffins", "Chili Con Carne", "Granola Bars")
QUANTITIES = ("1 cup", "2 cups", "1/2 cup", "3/4 cup", "1/4 cup", "1 tablespoon", "2 tablespoons", "1 teaspoon",
              "2 teaspoons", "3 teaspoons")
SPECIAL_INGREDIENTS = ("flaxseed meal", "date syrup", "poppy seeds", "miso paste", "cacao nibs", "sumac", "nutritional yeast",
                       "pumpkin seeds", "teff flour", "rose water", "black sesame", "tapioca starch")
RECIPE_BODIES = (
    "Ingredients:\n- 2 cups plain flour\n- 1/2 cup brown sugar\n- {ingredient_quantity} {ingredient}\n- 1 teaspoon baking "
    "soda\n- 3 ripe bananas\n\nInstructions:\n1. Heat the oven to 180C.\n2. Mix, pour into a tin, bake 50 minutes.",
    "Ingredients:\n- {ingredient_quantity} {ingredient}\n- 1 small pumpkin\n- 1 onion\n- 2 cups stock\n\nInstructions:\n"
    "1. Roast the pumpkin.\n2. Simmer with the onion and stock, then blend.",
    "Ingredients:\n- 1 cup cooked rice\n- 1/4 cup peas\n- 2 tablespoons butter\n- {ingredient_quantity} {ingredient}\n\n"
    "Instructions:\n1. Warm everything in a pan.\n2. Season and serve.",
    "Ingredients:\n- 1 cup rolled oats\n- 1/2 cup honey\n- {ingredient_quantity} {ingredient}\n- 1/4 cup raisins\n\n"
    "Instructions:\n1. Mix well.\n2. Press into a tray and chill for an hour.",
    "Ingredients:\n- 2 apples\n- 1 cup flour\n- 1/2 cup butter\n- {ingredient_quantity} {ingredient}\n\nInstructions:\n"
    "1. Slice the apples into a dish.\n2. Rub the rest into crumbs, scatter on top, bake.",
)
MEETING_TITLES = ("Monday Planning", "Client Health Check", "Launch Go/No-Go", "Budget Forecast Session",
                  "Partner Strategy Call", "Roadmap Alignment", "Campaign Retro", "Sprint Planning",
                  "Support Escalations Review", "Leadership Offsite", "Pricing Workshop", "Release Readiness",
                  "New Starter Orientation", "Procurement Review", "Quarterly Town Hall")
ATTENDEES = tuple(str(n) for n in range(5, 105, 5))
MEETING_BODIES = (
    "Meeting Notes:\n- Reviewed the milestones\n- Agreed owners for each action\n- {attendee_count} people attended\n",
    "Minutes:\n- Shared the sales figures\n- Discussed the next campaign\n- Attended by {attendee_count} participants\n",
    "Recap:\n- Went through customer feedback\n- Prioritised three fixes\n- {attendee_count} attendees were present\n",
    "Summary:\n- Looked at the quarter's goals\n- Named the risks\n- {attendee_count} colleagues took part\n",
    "Highlights:\n- Timeline confirmed\n- Resources shifted to testing\n- {attendee_count} people joined\n",
)
FOLDERS = ("Personal", "Work", "School", "Home", "Projects", "Ideas", "Recipes", "Finance", "Health", "Travel")
NOTE_TITLES = ("Shopping List", "Weekly Agenda", "Pitch Outline", "Morning Pages", "Errands", "Reading Notes",
               "Trip Plan", "Meal Ideas", "Savings Tracker", "Workout Log")
NOTE_BODIES = ("Bread, coffee, tomatoes and dish soap.", "Catch up with the design team on Tuesday.",
               "Problem, solution, market, ask.", "Three things I noticed this morning.",
               "Post office, bank, key cutter.", "Chapter 3 argues the opposite of chapter 1.",
               "Train on Friday, museum on Saturday.", "Curry, stir fry, soup, salad.",
               "Put aside 200 this month.", "Squats, lunges, planks.")


def _calendar(name, prompt, items, conditions, expect, params):
    return Spec(name, prompt, "calendar", items, conditions, expect, params)


SPECS = (
    _calendar("SimpleCalendarEventsOnDate",
              "What events do I have {date} in Simple Calendar Pro? Answer with the titles only. If there are multiple "
              "titles, format your answer as a comma separated list.",
              ({"start_date": "{date}", "start_time": "{time}", "duration": "{duration}", "title": "{title}"},),
              (C("start_date", "eq", "{date}"),), (Expect("string", "title"),),
              {"time": TIMES, "date": OCT, "duration": DURATIONS, "title": EVENT_TITLES}),
    _calendar("SimpleCalendarNextEvent",
              "What is my next upcoming event in Simple Calendar Pro? Answer with the title only. If there are "
              "multiples titles, format your answer in a comma separated list.",
              ({"start_date": "October 15 2023", "start_time": "{time}", "duration": "{duration}", "title": "{title}"},),
              (C("start_date", "eq", "October 15 2023"), C("start_time", "le", "{time}"),
               C("start_time", "ge", "15:30")),
              (Expect("string", "title"),), {"time": LATER_TODAY, "duration": DURATIONS, "title": EVENT_TITLES}),
    _calendar("SimpleCalendarEventOnDateAtTime",
              "What is on my schedule for {date} at {time} in Simple Calendar Pro?" + TITLES_LIST,
              ({"start_date": "{date}", "start_time": "{time}", "title": "{title}", "duration": "{duration}"},),
              (C("start_date", "eq", "{date}"), C("start_time", "eq", "{time}")), (Expect("string", "title"),),
              {"date": OCT, "time": TIMES, "duration": DURATIONS, "title": EVENT_TITLES}),
    _calendar("SimpleCalendarAnyEventsOnDate", "Do I have any events {date} in Simple Calendar Pro?" + TITLES_LIST,
              tuple({"start_date": "{date}", "start_time": "{time_without_replacement}", "duration": "1 hour",
                     "title": "{title_without_replacement}"} for _ in range(3)),
              (C("start_date", "eq", "{date}"),), (Expect("string", "title"),),
              {"date": OCT, "title": EVENT_TITLES, "time": TIMES}),
    _calendar("SimpleCalendarNextMeetingWithPerson",
              "When is my next meeting with {person} in Simple Calendar Pro? Express your answer in the format <month "
              "name> <day> <year> <hour in 24-hour format>:<minutes>.",
              ({"start_date": "{date}", "start_time": "{time}", "title": "Drinks with {person}"},),
              (C("title", "contains", "{person}"), C("start_date", "eq", "{date}")),
              (Expect("date", "start_date"), Expect("time", "start_time")),
              {"person": PEOPLE, "date": OCT, "time": TIMES}),
    _calendar("SimpleCalendarLocationOfEvent",
              "What is the location of my {title} event in Simple Calendar Pro? Answer with the location only.",
              ({"start_date": "{date}", "start_time": "{time}", "title": "{title}", "location": "{location}"},),
              (C("title", "contains", "{title}"),), (Expect("string", "location"),),
              {"title": EVENT_TITLES, "location": LOCATIONS, "date": OCT, "time": TIMES}),
    _calendar("SimpleCalendarEventsInNextWeek",
              "What events do I have in the next week in Simple Calendar Pro? Assume the week starts from Monday."
              + TITLES_LIST,
              ({"start_date": "{date_without_replacement}", "start_time": "{time_without_replacement}",
                "duration": "{duration}", "title": "{title}"},
               {"start_date": "{date_without_replacement}", "start_time": "{time_without_replacement}",
                "title": "{title_without_replacement}"}),
              (C("start_date", "le", "October 22 2023"), C("start_date", "ge", "October 15 2023")),
              (Expect("string", "title"),),
              {"date": NEXT_WEEK, "duration": DURATIONS, "title": EVENT_TITLES, "person": PEOPLE, "time": TIMES}),
    _calendar("SimpleCalendarFirstEventAfterStartTime",
              "What is my first event after {time} {date} in Simple Calendar Pro?" + TITLES_LIST,
              ({"start_date": "{date}", "start_time": "{time}", "duration": "{duration}", "title": "{title}"},),
              (C("start_date", "eq", "{date}"), C("start_time", "ge", "{time}")), (Expect("string", "title"),),
              {"date": OCT, "title": EXCLUSIVE_TITLES, "time": ("18:05",) + BEFORE_8PM, "duration": DURATIONS}),
    _calendar("SimpleCalendarEventsInTimeRange",
              "Do I have any events between {start_time} and 8pm {date} in Simple Calendar Pro?" + TITLES_LIST,
              ({"start_date": "{date}", "start_time": "{start_time}", "duration": "{duration}", "title": "{title}"},),
              (C("start_date", "eq", "{date}"), C("start_time", "ge", "{start_time}"), C("start_time", "le", "8pm")),
              (Expect("string", "title"),),
              {"start_time": BEFORE_8PM, "date": OCT, "title": EVENING_TITLES, "duration": DURATIONS}),
)


def _todos(hide_times: tuple[str, ...], **fields: str) -> tuple[dict[str, str], ...]:
    return tuple({"title": "{title_without_replacement}", "hide_until_date": date, "hide_until_time": time,
                  "notes": "{notes_without_replacement}", **fields}
                 for date, time in zip(("October 10 2023", "October 9 2023", "October 11 2023", "October 11 2023",
                                        "October 11 2023", "October 11 2023"), hide_times))


SPECS += (
    Spec("TasksDueOnDate", "What tasks do I have due {date} in Tasks app?" + TITLES_LIST, "tasks",
         _todos(("8:00", "10:00", "9:00"), due_date="{date}", importance="{importance_without_replacement}"),
         (C("due_date", "eq", "{date}"),), (Expect("string", "title"),),
         {"date": OCT, "importance": ("0", "0", "1", "1", "2", "2", "3", "3"), "title": TASK_TITLES, "notes": TASK_NOTES}),
    Spec("TasksHighPriorityTasks", "What are my high priority tasks in Tasks app?" + TITLES_LIST, "tasks",
         ({"title": "{task_title}", "importance": "0", "due_date": "{due_date}", "due_time": "{time}",
           "hide_until_date": "{hide_until_date}", "hide_until_time": "{time}", "notes": "{notes}"},),
         (C("importance", "eq", "0"),), (Expect("string", "title"),),
         {"task_title": TASK_TITLES, "notes": TASK_NOTES, "due_date": NEXT_WEEK, "time": TIMES,
          "hide_until_date": tuple(f"October {d} 2023" for d in range(10, 16))}),
    Spec("TasksHighPriorityTasksDueOnDate",
         "Which tasks with high priority are due {date} in the Tasks app? Answer with the title only. If there are "
         "multiples titles, format your answer in a comma separated list.", "tasks",
         ({"title": "{title}", "importance": "0", "due_date": "{date}", "due_time": "{time}"},),
         (C("due_date", "eq", "{date}"), C("importance", "eq", "0")), (Expect("string", "title"),),
         {"date": OCT, "time": DUE_TIMES, "title": PRIORITY_TITLES}),
    Spec("TasksDueNextWeek",
         "How many tasks do I have due next week in Tasks app? Assume the week starts from Monday. Express your answer "
         "as a single integer.", "tasks",
         _todos(("8:00", "10:00", "9:00", "9:00", "9:00", "9:00"), due_date="{due_date_without_replacement}"),
         (C("due_date", "le", "October 22 2023"), C("due_date", "ge", "October 16 2023")),
         (Expect("number", "title", op="count"),), {"title": TASK_TITLES, "notes": TASK_NOTES, "due_date": NEXT_WEEK}),
    Spec("TasksCompletedTasksForDate", "Which tasks have I completed for {date} in Tasks app?" + TITLES_LIST, "tasks",
         tuple({"title": "{title_without_replacement}", "due_date": "{date}", "hide_until_date": hide,
                "hide_until_time": "{time_without_replacement}", "completed_date": "{completed_date}",
                "completed_time": "{time_without_replacement}", "notes": "{notes_without_replacement}"}
               for hide in ("October 10 2023", "October 9 2023", "October 11 2023")),
         (C("due_date", "eq", "{date}"),), (Expect("string", "title"),),
         {"title": TASK_TITLES, "notes": TASK_NOTES, "date": tuple(f"October {d} 2023" for d in range(10, 21)),
          "completed_date": tuple(f"October {d} 2023" for d in range(10, 16)), "time": TIMES}),
    Spec("TasksIncompleteTasksOnDate",
         "What incomplete tasks do I have still have to do by {date} in Tasks app?" + TITLES_LIST, "tasks",
         tuple({"title": "{title_without_replacement}", "importance": "{importance_without_replacement}",
                "due_date": "{date}", "hide_until_date": hide, "hide_until_time": "{time_without_replacement}",
                "notes": "{notes_without_replacement}"}
               for hide in ("October 10 2023", "October 9 2023", "October 11 2023")),
         (C("due_date", "le", "{date}"), C("completed_date", "eq", "0")), (Expect("string", "title"),),
         {"title": TASK_TITLES, "importance": ("0", "1", "2", "3"), "notes": TASK_NOTES, "date": OCT, "time": TIMES}),
)


def _activity(start_date: str, category: str = "{category_without_replacement}",
              duration: str = "{duration_without_replacement}",
              distance: str = "{distance_without_replacement}") -> dict[str, str]:
    return {"name": "{activity_name_without_replacement}", "description": "{activity_description_without_replacement}",
            "start_date": start_date, "start_time": "{start_time_without_replacement}", "category": category,
            "duration": duration, "total_distance": distance, "elevation_gain": "{elevation_without_replacement}",
            "elevation_loss": "{elevation_without_replacement}"}


SPORT_PARAMS = {"category": SPORTS, "duration": MINUTES, "distance": METERS, "start_time": START_TIMES,
                "elevation": CLIMB, "activity_name": ACTIVITY_NAMES, "activity_description": ACTIVITY_DESCRIPTIONS}
WEEK = (C("start_date", "le", "October 15 2023"), C("start_date", "ge", "October 9 2023"))

# AndroidWorld's step budgets are its task protos' complexities (2 for the two questions over
# many days, 1 for the rest); its registry's finer overrides are replaced by them when a task
# is made, so they never reach the budget.
SPECS += (
    Spec("SportsTrackerActivitiesOnDate",
         "What activities did I do {date} in the OpenTracks app? Answer with the activity type only. If there are "
         "multiple types, format your answer in a comma separated list.", "sports",
         (_activity("{date}"), _activity("{date}")), (C("start_date", "eq", "{date}"),),
         (Expect("string", "category"),), {"date": PAST_DAYS, **SPORT_PARAMS}, complexity=2),
    Spec("SportsTrackerActivitiesCountForWeek",
         "How many {category} activities did I do this week in the OpenTracks app? Assume the week starts from Monday. "
         "Express your answer as a single integer.", "sports",
         (_activity("{start_date_without_replacement}", "{category}"),) * 2,
         (C("category", "contains", "{category}"), *WEEK), (Expect("number", "name", op="count"),),
         {"start_date": THIS_WEEK, **SPORT_PARAMS}),
    Spec("SportsTrackerActivityDuration",
         "How long was my {category} activity {date} in the OpenTracks app? Express your answer in minutes as a single "
         "integer.", "sports",
         ({"name": "{activity_name}", "description": "{activity_description}", "start_date": "{date}",
           "start_time": "{start_time}", "category": "{category}", "duration": "{duration}",
           "total_distance": "{distance}", "elevation_gain": "{elevation_without_replacement}",
           "elevation_loss": "{elevation_without_replacement}"},),
         (C("start_date", "eq", "{date}"), C("category", "contains", "{category}")), (Expect("number", "duration"),),
         {"date": tuple(f"October {d} 2023" for d in range(5, 16)), **SPORT_PARAMS}),
    Spec("SportsTrackerLongestDistanceActivity",
         "What was the longest distance covered in a {category} activity in the OpenTracks app this week? Assume the "
         "week starts from Monday. Express your answer as a single number in meters rounded to the nearest integer.",
         "sports", (_activity("{start_date_without_replacement}", "{category}", distance="{distance}"),),
         (C("category", "contains", "{category}"), C("total_distance", "ge", "{distance}"), *WEEK),
         (Expect("number", "total_distance", tolerance=10),), {"start_date": THIS_WEEK, **SPORT_PARAMS}),
    Spec("SportsTrackerTotalDurationForCategoryThisWeek",
         "What was the total duration of {category} activities in the OpenTracks app this week? Assume the week starts "
         "from Monday. Express your answer in minutes as a single integer.", "sports",
         (_activity("{start_date_without_replacement}", "{category}"),) * 2,
         (C("category", "contains", "{category}"), *WEEK), (Expect("number", "duration", op="sum"),),
         {"start_date": THIS_WEEK, **SPORT_PARAMS}),
    Spec("SportsTrackerTotalDistanceForCategoryOverInterval",
         "What was the total distance covered for {category} activities in the OpenTracks app from {start_date} to "
         "{end_date}? Express your answer as a single number in meters rounded to the nearest integer.", "sports",
         (_activity("{start_date}", "{category}"),) * 2,
         (C("category", "contains", "{category}"), C("start_date", "ge", "{start_date}"),
          C("start_date", "le", "{end_date}")),
         (Expect("number", "total_distance", op="sum", tolerance=10),),
         {"start_date": tuple(f"October {d} 2023" for d in range(1, 10)),
          "end_date": tuple(f"October {d} 2023" for d in range(10, 16)), **SPORT_PARAMS}, complexity=2),
)

SPECS += (
    Spec("NotesRecipeIngredientCount",
         "What quantity of {ingredient} do I need for the recipe '{title}' in the Joplin app? Express your answer in "
         "the format <amount> <unit> where both the amount and unit exactly match the format in the recipe.", "notes",
         ({"folder": "Recipes", "title": "{title}", "body": "{body}", "is_todo": "false"},),
         (C("title", "contains", "{title}"),), (Expect("string", value="{ingredient_quantity}"),),
         {"title": RECIPE_TITLES, "ingredient_quantity": QUANTITIES, "ingredient": SPECIAL_INGREDIENTS,
          "body": RECIPE_BODIES}),
    Spec("NotesMeetingAttendeeCount",
         "How many attendees were present in the meeting titled '{title}' in the Joplin app? Express your answer as "
         "just a single number.", "notes",
         ({"folder": "Meeting Notes", "title": "{title}", "body": "{body}", "is_todo": "false"},),
         (C("title", "contains", "{title}"),), (Expect("number", value="{attendee_count}"),),
         {"title": MEETING_TITLES, "attendee_count": ATTENDEES, "body": MEETING_BODIES}),
    Spec("NotesIsTodo",
         "Is the note titled '{title}' in the Joplin app marked as a todo item? Respond with either 'True' if it is a "
         "todo or 'False' if not.", "notes",
         ({"title": "{title}", "is_todo": "{is_todo}", "folder": "{folder}", "body": "{body}"},),
         (C("title", "eq", "{title}"),), (Expect("string", value="{is_todo}"),),
         {"title": NOTE_TITLES, "is_todo": ("True", "False"), "body": NOTE_BODIES, "folder": FOLDERS}),
    Spec("NotesTodoItemCount",
         "How many to-dos do I have in the '{folder}' folder in the Joplin app? Express your answer as just a single "
         "number.", "notes",
         tuple({"folder": "{folder}", "title": "{title_without_replacement}", "body": "{body_without_replacement}",
                "is_todo": "True"} for _ in range(3)),
         (C("is_todo", "eq", "True"), C("folder", "eq", "{folder}")), (Expect("number", "is_todo", op="count"),),
         {"folder": FOLDERS, "title": NOTE_TITLES, "body": NOTE_BODIES}),
)

APP_NAMES = {"calendar": ("simple calendar pro",), "tasks": ("tasks",), "sports": ("open tracks sports tracker",),
             "notes": ("joplin",)}


def _task_class(spec: Spec) -> type[InformationRetrievalTask]:
    return type(spec.name, (InformationRetrievalTask,), {
        "name": spec.name, "spec": spec, "template": spec.prompt, "complexity": spec.complexity,
        "app_names": APP_NAMES[spec.app], "__module__": __name__,
        "__doc__": f"{spec.name}: a question on {APP_NAMES[spec.app][0]}, answered with the `answer` action."})


TASKS = tuple(_task_class(spec) for spec in SPECS)
