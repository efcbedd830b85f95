def handler(event):
    return {'status': 200, 'body': event}
